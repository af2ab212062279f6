// Read an inventory file: parse YAML keeping positions, validate against the shipped schema,
// run the semantic checks, and resolve defaults. Every problem is reported, all at once.
import { readBoundedFileSync } from '../../orchestrator/util/bounded-file.js';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { depthDiagnostic, documentDiagnostics, MAX_ALIASES, MAX_INVENTORY_BYTES, sizeDiagnostic } from './document-guards.js';
import { formatDiagnostic, type Diagnostic } from './diagnostics.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { RawInventory } from './raw-inventory.js';
import { defaultHomeDir, resolveInventory } from './resolve-inventory.js';
import { compileInventorySchema, schemaDiagnostics, schemaErrors } from './schema-diagnostics.js';
import { semanticDiagnostics } from './semantic-checks.js';
import { SourceMap } from './source-map.js';
import { yamlDiagnostics } from './yaml-diagnostics.js';

export { formatDiagnostic, type Diagnostic };

export type InventoryLoadResult =
  | { readonly ok: true; readonly inventory: Inventory; readonly warnings: Diagnostic[] }
  | { readonly ok: false; readonly errors: Diagnostic[]; readonly warnings: Diagnostic[] };

export interface LoadInventoryOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly homeDir?: string;
}

const byPosition = (a: Diagnostic, b: Diagnostic): number => a.line - b.line || a.col - b.col;

function failure(errors: Diagnostic[], warnings: Diagnostic[] = []): InventoryLoadResult {
  return { ok: false, errors: [...errors].sort(byPosition), warnings: [...warnings].sort(byPosition) };
}

/** Parse and check inventory text; `file` is used for messages and relative paths. */
export function parseInventory(text: string, file: string, options: LoadInventoryOptions = {}): InventoryLoadResult {
  const tooLarge = sizeDiagnostic(Buffer.byteLength(text), file);
  if (tooLarge) return failure([tooLarge]);
  const lines = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    // The parser recurses per level: thousands of levels overflow its stack before our limit is seen.
    if (error instanceof RangeError) return failure([depthDiagnostic(file)]);
    throw error;
  }
  if (doc.errors.length > 0) {
    const tooDeep = doc.errors.find((e) => /call stack/i.test(e.message));
    if (tooDeep) {
      const p = lines.linePos(tooDeep.pos[0]);
      return failure([depthDiagnostic(file, p.line, p.col)]);
    }
    return failure(yamlDiagnostics(doc.errors, text, lines, file));
  }
  const refused = documentDiagnostics(doc, lines, file);
  if (refused.length > 0) return failure(refused);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    // yaml refuses documents whose aliases expand without bound (a "billion laughs" file).
    return failure([{ file, line: 1, col: 1, path: '', message: `YAML: ${(error as Error).message}`, severity: 'error' }]);
  }
  const map = new SourceMap(doc, lines);
  if (data === null || data === undefined) {
    return failure([{ file, line: 1, col: 1, path: '', message: 'the inventory is empty: it needs at least `hosts:`', severity: 'error' }]);
  }
  const invalid = schemaErrors(compileInventorySchema(), data);
  if (invalid.length > 0) {
    const errors = schemaDiagnostics(invalid, map, file);
    // Still report duplicates, CIDRs and the like in the same pass, where the shapes allow it.
    const semantic = semanticDiagnostics(data as RawInventory, undefined, map, file, { tolerant: true });
    return failure(
      [...errors, ...semantic.filter((d) => d.severity === 'error')],
      semantic.filter((d) => d.severity === 'warning'),
    );
  }

  const raw = data as RawInventory;
  const ctx = { file, env: options.env ?? process.env, homeDir: options.homeDir ?? defaultHomeDir() };
  const semanticOnly = semanticDiagnostics(raw, undefined, map, file);
  const inventory = semanticOnly.some((d) => d.severity === 'error') ? undefined : resolveInventory(raw, ctx);
  const diagnostics = inventory ? semanticDiagnostics(raw, inventory, map, file) : semanticOnly;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const warnings = diagnostics.filter((d) => d.severity === 'warning');
  if (!inventory || errors.length > 0) return failure(errors, warnings);
  const hosts = inventory.hosts.map((host, i) => {
    const pos = map.value(['hosts', i]);
    return { ...host, source: `${file}:${pos.line}:${pos.col}` };
  });
  return { ok: true, inventory: { ...inventory, hosts }, warnings };
}

export async function loadInventory(file: string, options: LoadInventoryOptions = {}): Promise<InventoryLoadResult> {
  let text: string;
  try {
    text = readBoundedFileSync(file, MAX_INVENTORY_BYTES, 'an inventory').toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String((error as Error).message);
    return failure([{ file, line: 1, col: 1, path: '', message: `cannot read the inventory: ${why}`, severity: 'error' }]);
  }
  return parseInventory(text, file, options);
}
