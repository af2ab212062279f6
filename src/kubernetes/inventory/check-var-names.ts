// A var written almost like one kcluster's roles read (`cgroupdriver`, `failSwapon`) is read
// by nothing: the role keeps its default and the inventory still validates. Any other name
// stays free for the operator's own roles, so this is a warning naming the shipped var, not
// an error. The shipped names are the schema's (definitions.vars, one entry per var a role reads).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import type { RawInventory } from './raw-inventory.js';
import { SCHEMA_PATH } from './schema-diagnostics.js';
import type { Report } from './semantic-checks.js';
import { isRecord, listAt, recordAt } from './shape.js';
import { closest } from '../../orchestrator/inventory/suggest.js';

/** How far a name may be from a shipped var to be taken for a misspelling of it. */
export const VAR_NAME_DISTANCE = 2;

let shipped: readonly string[] | undefined;

/** The names of the vars kcluster's roles read, as the inventory schema lists them (read once: the schema ships with kcluster). */
export function shippedVarNames(): readonly string[] {
  if (shipped === undefined) {
    const schema = JSON.parse(readFileSync(join(packageRoot(), SCHEMA_PATH), 'utf8')) as { definitions?: { vars?: { properties?: Record<string, unknown> } } };
    shipped = Object.freeze(Object.keys(schema.definitions?.vars?.properties ?? {}));
  }
  return shipped;
}

/** Every vars map of the document (the inventory's, each group's, each host's), with its path. */
function varsMaps(raw: RawInventory): [(string | number)[], Record<string, unknown>][] {
  const out: [(string | number)[], Record<string, unknown>][] = [];
  const top = recordAt(raw, 'vars');
  if (top) out.push([['vars'], top]);
  for (const [name, group] of Object.entries(recordAt(raw, 'groups') ?? {})) {
    const vars = recordAt(group, 'vars');
    if (vars) out.push([['groups', name, 'vars'], vars]);
  }
  (listAt(raw, 'hosts') ?? []).forEach((host, i) => {
    const vars = isRecord(host) ? recordAt(host, 'vars') : undefined;
    if (vars) out.push([['hosts', i, 'vars'], vars]);
  });
  return out;
}

/** Warns at each var name within VAR_NAME_DISTANCE edits of a shipped var it is not. */
export function checkVarNames(raw: RawInventory, report: Report, shipped: readonly string[] = shippedVarNames()): void {
  const exact = new Set(shipped);
  for (const [path, vars] of varsMaps(raw)) {
    for (const name of Object.keys(vars)) {
      if (exact.has(name)) continue;
      const guess = closest(name, shipped, VAR_NAME_DISTANCE);
      if (guess === undefined) continue;
      report(
        path,
        `"${name}" is not a var kcluster reads (its roles ignore it and use their default): did you mean "${guess}"? Rename it, or keep it if your own roles read it`,
        'warning',
        name,
      );
    }
  }
}
