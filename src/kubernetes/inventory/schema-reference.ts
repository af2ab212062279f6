// The inventory reference page (docs/users/inventory-reference.md), rendered from the JSON
// Schema alone: every key with its path, type, default, allowed values, description and an
// example where the schema has one. `npm run docs:inventory` writes it; a unit test fails when
// the committed page differs from what this renders.
import { stringify } from 'yaml';
import { schemaEntries, resolveNode, type SchemaEntry, type SchemaNode } from './schema-entries.js';

/** The page's path in the repository, and the command that writes it. */
export const REFERENCE_PAGE = 'docs/users/inventory-reference.md';
export const REFERENCE_COMMAND = 'npm run docs:inventory';

const inline = (value: unknown): string => stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
const code = (text: string): string => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** Plain text as Markdown: no HTML tags from `<name>`, no emphasis from `*.yaml` or `_`; code spans kept. */
const prose = (text: string): string =>
  text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(/[\\*_<>]/g, (c) => `\\${c}`)))
    .join('');

function sentence(text: string): string {
  const trimmed = prose(text.trim());
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.)]$/.test(capital) ? capital : `${capital}.`;
}

/** "map (keys below)" -> "maps (keys below)", "string" -> "strings". */
const plural = (type: string): string => type.replace(/^(\w+)/, '$1s');
const article = (word: string): string => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function typeOf(root: SchemaNode, node: SchemaNode): string {
  if (node.enum !== undefined) return [...new Set(node.enum.map((v) => typeof v))].join(' or ');
  if (node.anyOf !== undefined) return [...new Set(node.anyOf.map((b) => typeOf(root, resolveNode(root, b))))].join(' or ');
  const types = node.type === undefined ? [] : typeof node.type === 'string' ? [node.type] : [...node.type];
  return types
    .map((t) => {
      if (t === 'array') return node.items !== undefined ? `list of ${plural(typeOf(root, resolveNode(root, node.items)))}` : 'list';
      if (t === 'object') return node.properties !== undefined ? 'map (keys below)' : 'map';
      return t;
    })
    .join(' or ');
}

/** The schema's exact limits, in the words a reader needs. */
function constraints(root: SchemaNode, node: SchemaNode): string[] {
  const out: string[] = [];
  if (node.enum !== undefined) out.push(`one of ${node.enum.map((v) => code(String(v))).join(', ')}`);
  if (node.pattern !== undefined) out.push(`matches ${code(node.pattern)}`);
  if (node.minimum !== undefined) out.push(`at least ${node.minimum}`);
  if (node.maximum !== undefined) out.push(`at most ${node.maximum}`);
  if (node.minLength !== undefined && node.minLength > 1) out.push(`at least ${node.minLength} characters`);
  if (node.minLength === 1) out.push('not empty');
  if (node.maxLength !== undefined) out.push(`at most ${node.maxLength} characters`);
  if (node.minItems !== undefined) out.push(`at least ${node.minItems} item${node.minItems === 1 ? '' : 's'}`);
  if (node.maxItems !== undefined) out.push(`at most ${node.maxItems} items`);
  if (node.uniqueItems === true) out.push('no duplicates');
  if (node.propertyNames?.pattern !== undefined) out.push(`keys match ${code(node.propertyNames.pattern)}`);
  const items = node.items !== undefined ? resolveNode(root, node.items) : undefined;
  if (items !== undefined && items.properties === undefined) {
    const inner = constraints(root, items);
    if (inner.length > 0) out.push(`each item: ${inner.join(', ')}`);
  }
  const values = typeof node.additionalProperties === 'object' ? resolveNode(root, node.additionalProperties) : undefined;
  if (values !== undefined && values.properties === undefined) {
    const inner = [typeOf(root, values), ...constraints(root, values)].filter((t) => t !== '');
    if (inner.length > 0) out.push(`each value: ${inner.join(', ')}`);
  }
  if (node.anyOf !== undefined) {
    for (const branch of node.anyOf.map((b) => resolveNode(root, b))) {
      const inner = constraints(root, branch);
      if (inner.length > 0) out.push(`as ${article(typeOf(root, branch))}: ${inner.join(', ')}`);
    }
  }
  return out;
}

function defaultLine(entry: SchemaEntry): string | undefined {
  const { node } = entry;
  if (entry.required) return 'required';
  if (node.default !== undefined) return code(inline(node.default));
  if (node.defaultText !== undefined) return prose(node.defaultText);
  if (node.properties !== undefined) return undefined; // each key below says its own
  return 'none';
}

function leafKey(path: string): string {
  return path.split('.').pop()!.replace(/\[\]$/, '');
}

function renderEntry(root: SchemaNode, entry: SchemaEntry): string {
  const { node, path } = entry;
  if (node.description === undefined) {
    throw new Error(`inventory schema: ${path} has no description: add one to inventory.schema.json (what the key does, read from the code that uses it)`);
  }
  const lines = [`### ${code(path)}`, '', sentence(node.description), ''];
  lines.push(`- type: ${typeOf(root, node)}`);
  const fallback = defaultLine(entry);
  if (fallback !== undefined) lines.push(`- default: ${fallback}`);
  if (node.allowed !== undefined) lines.push(`- allowed: ${prose(node.allowed)}`);
  const limits = constraints(root, node);
  if (limits.length > 0) lines.push(`- schema: ${limits.join('; ')}`);
  const example = node.examples?.[0];
  if (example !== undefined) lines.push(`- example: ${code(`${leafKey(path)}: ${inline(example)}`)}`);
  if (entry.sameAs !== undefined) lines.push(`- its keys: as under ${code(entry.sameAs)}`);
  return `${lines.join('\n')}\n`;
}

/** The whole page, from the parsed inventory schema. */
export function schemaReference(schema: SchemaNode): string {
  const entries = schemaEntries(schema);
  const sections = Object.keys(schema.properties ?? {});
  const head = [
    '# Inventory reference',
    '',
    `<!-- Generated from src/kubernetes/inventory/inventory.schema.json by \`${REFERENCE_COMMAND}\`: edit the schema, not this page. -->`,
    '',
    'Every key of the inventory file, generated from the JSON Schema `kcluster validate` checks it',
    'against. Paths are dotted; `[]` stands for each item of a list and `<name>` for any key of a',
    'map. "none" as a default means the setting is off or absent until you give it. A guide with',
    'the reasons behind the keys: [Inventory](inventory.md); complete files to start from:',
    '[examples](../../examples/README.md).',
    '',
    sections.map((s) => `[${s}](#${s.toLowerCase()})`).join(' · '),
    '',
  ];
  const body = sections.flatMap((section) => [
    `## ${section}`,
    '',
    ...entries.filter((e) => e.path === section || e.path.startsWith(`${section}.`) || e.path.startsWith(`${section}[]`)).map((e) => renderEntry(schema, e)),
  ]);
  return `${[...head, ...body].join('\n').trimEnd()}\n`;
}
