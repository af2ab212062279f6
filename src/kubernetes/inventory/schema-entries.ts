// The inventory schema as a flat list of keys, in the order the schema writes them, each with
// its dotted path (`hosts[].bastion.address`, `cluster.registries.<registry>.mirrors`) and its
// schema merged with what the place that uses it adds ($ref siblings: description, default).
// The inventory reference page (schema-reference.ts) is rendered from this list.

/** The parts of a JSON Schema node the reference reads. */
export interface SchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly SchemaNode[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly propertyNames?: SchemaNode;
  readonly items?: SchemaNode;
  readonly required?: readonly string[];
  readonly description?: string;
  readonly allowed?: string;
  readonly default?: unknown;
  readonly defaultText?: string;
  readonly examples?: readonly unknown[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

export interface SchemaEntry {
  /** Dotted path; `[]` for a list's items, `<name>` for a map's keys. */
  readonly path: string;
  readonly node: SchemaNode;
  readonly required: boolean;
  /** Set when the keys below were listed at another path (a shared definition). */
  readonly sameAs?: string;
}

/** What a map's keys are called in paths, by the map's own key. */
const MAP_KEY_NAMES: Readonly<Record<string, string>> = { groups: 'group', registries: 'registry' };

/** The node a local `$ref` points to, with the referring node's own keywords on top. */
export function resolveNode(root: SchemaNode, node: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  if (!node.$ref.startsWith('#/')) throw new Error(`inventory schema: only local $ref are supported (got ${node.$ref})`);
  let target: unknown = root;
  for (const part of node.$ref.slice(2).split('/')) {
    target = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)[part] : undefined;
  }
  if (typeof target !== 'object' || target === null) throw new Error(`inventory schema: $ref ${node.$ref} points to nothing`);
  const { $ref: _ref, ...own } = node;
  return { ...resolveNode(root, target as SchemaNode), ...own };
}

/** The branch of an anyOf that has keys of its own (bastion's and become's map form). */
function objectBranch(root: SchemaNode, node: SchemaNode): SchemaNode | undefined {
  return node.anyOf?.map((b) => resolveNode(root, b)).find((b) => b.properties !== undefined);
}

/** Every key of the schema, depth first in the schema's order. */
export function schemaEntries(root: SchemaNode): SchemaEntry[] {
  const entries: SchemaEntry[] = [];
  const listedAt = new Map<string, string>();

  function children(node: SchemaNode, path: string, key: string): void {
    const keyed = node.properties !== undefined ? node : objectBranch(root, node);
    if (keyed?.properties !== undefined) {
      for (const [name, child] of Object.entries(keyed.properties)) {
        visit(child, path === '' ? name : `${path}.${name}`, name, keyed.required?.includes(name) ?? false);
      }
    }
    const items = node.items !== undefined ? resolveNode(root, node.items) : undefined;
    if (items?.properties !== undefined) visitBlock(node.items!, `${path}[]`, key);
    const values = typeof node.additionalProperties === 'object' ? resolveNode(root, node.additionalProperties) : undefined;
    if (values?.properties !== undefined) visitBlock(node.additionalProperties as SchemaNode, `${path}.<${MAP_KEY_NAMES[key] ?? 'name'}>`, key);
  }

  /** A list's item or a map's value: its keys, not an entry of its own. */
  function visitBlock(raw: SchemaNode, path: string, key: string): void {
    children(resolveNode(root, raw), path, key);
  }

  function visit(raw: SchemaNode, path: string, key: string, required: boolean): void {
    const node = resolveNode(root, raw);
    const shared = raw.$ref !== undefined && (node.properties !== undefined || objectBranch(root, node) !== undefined) ? raw.$ref : undefined;
    const first = shared !== undefined ? listedAt.get(shared) : undefined;
    entries.push({ path, node, required, ...(first !== undefined ? { sameAs: first } : {}) });
    if (first !== undefined) return;
    if (shared !== undefined) listedAt.set(shared, path);
    children(node, path, key);
  }

  children(root, '', '');
  return entries;
}
