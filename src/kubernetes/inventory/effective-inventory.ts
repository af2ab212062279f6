// `kcluster config`: the inventory as the user wrote it (keys, values and comments kept), with
// every default filled in and marked, so it can be pasted back as an inventory and means the
// same. What is filled comes from the inventory's JSON Schema, the same place the reference
// page and its defaults test read:
//
// - a key with a fixed `default` that the document does not write gets that value, marked
//   `# default`; a map that is not written is created for it, unless its presence means
//   something (cluster.proxy warns without a proxy) or it has required keys (oidc, the state store);
// - some computed defaults (`defaultText`) whose value does not change what the document
//   means once written: stateDir, cluster.artifacts.cacheDir, a registry's server, each
//   host's roles (etcd added to control planes when no host has it), marked `# computed`;
// - the others stay unwritten, their meaning depends on not being set (the API endpoint: a
//   load balancer when set; a host's SSH settings inherit ssh's; the login method depends on
//   the controller's environment).
//
// It holds only the NAMES of environment variables that carry secrets, as the inventory does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { schemaEntries, type SchemaEntry, type SchemaNode } from './schema-entries.js';
import { SCHEMA_PATH } from './schema-diagnostics.js';
import { packageRoot } from '../../orchestrator/util/package-root.js';

/** Maps not created only to hold defaults: their presence means something, or they need keys the user chooses. */
const NOT_CREATED: ReadonlySet<string> = new Set([
  'cluster.proxy',
  'cluster.apiServer.oidc',
  'ssh.become',
  'cluster.state',
  'cluster.state.scheduledSnapshots',
  'cluster.apiEndpoint.virtualIp',
]);

/** Defaults that do not apply in the inventory's mode, which the loader warns about when written. */
const IRRELEVANT: Readonly<Record<string, (inventory: Inventory) => boolean>> = {
  'cluster.artifacts.mirrors': (inventory) => inventory.cluster.artifacts.kind === 'bundle',
};

export const DEFAULT_MARK = 'default';
export const COMPUTED_MARK = 'computed';

let schema: SchemaNode | undefined;

/** The shipped schema, read once per process. */
function loadSchema(): SchemaNode {
  schema ??= JSON.parse(readFileSync(join(packageRoot(), SCHEMA_PATH), 'utf8')) as SchemaNode;
  return schema;
}

/**
 * The entries, with the keys of a shared definition listed again under every place that uses it
 * (the reference lists them once: cluster.scheduler is "the same as" cluster.controllerManager),
 * so that each place gets its defaults.
 */
function withSharedDefinitions(entries: readonly SchemaEntry[]): SchemaEntry[] {
  const out: SchemaEntry[] = [];
  for (const entry of entries) {
    out.push(entry);
    if (entry.sameAs === undefined) continue;
    const prefix = `${entry.sameAs}.`;
    for (const inner of entries) if (inner.path.startsWith(prefix)) out.push({ ...inner, path: `${entry.path}.${inner.path.slice(prefix.length)}` });
  }
  return out;
}

/** Sets `value` at `path` when it is absent and every parent is a map (created where allowed); marks it. */
function fill(doc: Document, path: readonly (string | number)[], value: unknown, mark: string): void {
  if (doc.hasIn(path)) return;
  for (let i = 1; i < path.length; i++) {
    const parent = path.slice(0, i);
    const node = doc.getIn(parent, true) as Node | undefined;
    if (node === undefined) {
      if (NOT_CREATED.has(parent.join('.'))) return;
    } else if (!isMap(node)) {
      return; // a boolean or a list where the schema also allows a map (ssh.become: true)
    }
  }
  doc.setIn(path, doc.createNode(value, { flow: typeof value === 'object' }));
  const node = doc.getIn(path, true) as Node & { comment?: string | null };
  node.comment = ` ${mark}`;
}

/** The inventory document with every default filled in (see the top of this file). */
export function effectiveInventoryDocument(text: string, inventory: Inventory, schema: SchemaNode = loadSchema()): Document {
  const doc = parseDocument(text);
  if (!isMap(doc.contents)) throw new Error(`${inventory.file}: the inventory is not a map`);
  const entries = withSharedDefinitions(schemaEntries(schema));
  for (const entry of entries) {
    if (entry.node.default === undefined || entry.path.includes('[]') || entry.path.includes('<')) continue;
    if (IRRELEVANT[entry.path]?.(inventory) === true) continue;
    fill(doc, entry.path.split('.'), entry.node.default, DEFAULT_MARK);
  }
  fill(doc, ['stateDir'], inventory.stateDir, COMPUTED_MARK);
  fill(doc, ['cluster', 'artifacts', 'cacheDir'], inventory.cluster.artifacts.cacheDir, COMPUTED_MARK);
  for (const [name, registry] of Object.entries(inventory.cluster.registries))
    fill(doc, ['cluster', 'registries', name, 'server'], registry.server, COMPUTED_MARK);
  const hosts = doc.get('hosts', true);
  if (isSeq(hosts)) {
    inventory.hosts.forEach((host, i) => {
      if (isMap(hosts.items[i])) fill(doc, ['hosts', i, 'roles'], [...host.roles], COMPUTED_MARK);
    });
  }
  // Keys whose default depends on the rest (a load balancer or not, the runtime, workers or
  // not): left unset, since writing a value would change what the document means; said here.
  const unset = entries
    .filter((e) => e.node.default === undefined && e.node.defaultText !== undefined && !e.path.includes('[]') && !e.path.includes('<'))
    .filter((e) => !doc.hasIn(e.path.split('.')) && doc.hasIn(e.path.split('.').slice(0, -1)))
    .map((e) => `   ${e.path}: ${e.node.defaultText}`);
  const header = [
    ` kcluster config: the effective inventory of ${inventory.file}.`,
    ` Every key as written there, and every default filled in: "# ${DEFAULT_MARK}" marks kcluster's fixed`,
    ` defaults, "# ${COMPUTED_MARK}" what it derives from the rest; a host's own SSH settings, when`,
    ` absent, are ssh's (docs/users/inventory-reference.md). It validates and means the same as the original.`,
    ...(unset.length > 0 ? [` Not set here, so each takes the default its absence means:`, ...unset] : []),
  ].join('\n');
  // After the document's own first comment (an editor's schema line must stay on line 1),
  // which the parser gives the document or its first key.
  const firstKey = doc.contents.items[0]?.key as (Node & { commentBefore?: string | null }) | undefined;
  if (doc.commentBefore) doc.commentBefore = `${doc.commentBefore}\n\n${header}`;
  else if (firstKey?.commentBefore) firstKey.commentBefore = `${firstKey.commentBefore}\n\n${header}`;
  else doc.commentBefore = header;
  return doc;
}

export function renderEffectiveInventory(text: string, inventory: Inventory, format: 'yaml' | 'json'): string {
  const doc = effectiveInventoryDocument(text, inventory);
  return format === 'json' ? `${JSON.stringify(doc.toJS(), null, 2)}\n` : doc.toString({ lineWidth: 0 });
}
