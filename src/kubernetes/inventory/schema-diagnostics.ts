// Validate the parsed document against the shipped JSON Schema (ajv, allErrors) and map
// every ajv error to the YAML node it is about: the unknown key itself for additional
// properties, the parent map for a missing key, the value otherwise.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { formatPath, type Diagnostic } from './diagnostics.js';
import { compileAtRunTime, loadPrecompiled } from './precompiled-validator.js';
import { allowedText, messageFor, shown } from './schema-messages.js';
import type { SourceMap } from './source-map.js';
import { closest } from '../../orchestrator/inventory/suggest.js';

/** Where the schema lives inside the package (editors read it through `$schema=`). */
export const SCHEMA_PATH = join('src', 'kubernetes', 'inventory', 'inventory.schema.json');

let validator: ValidateFunction | undefined;

/**
 * The schema's validator: compiled ahead of time by the build when it matches the schema file.
 * Made once per process (the schema ships with kcluster): compiling it at run time, as when
 * running from the sources, takes tens of milliseconds per inventory otherwise.
 */
export function compileInventorySchema(): ValidateFunction {
  if (validator === undefined) {
    const schemaText = readFileSync(join(packageRoot(), SCHEMA_PATH), 'utf8');
    validator = loadPrecompiled(schemaText) ?? compileAtRunTime(schemaText);
  }
  return validator;
}

/** Hosts validated per call: ajv appends each host's errors by copying the list so far, so one call over many invalid hosts is quadratic in their number (figures: bench/results/2026-11-28-figures-from-code-comments.md). */
const HOSTS_PER_VALIDATION = 500;

/** Every schema error of the document, in document order, in time linear in its hosts. */
export function schemaErrors(validate: ValidateFunction, data: unknown): ErrorObject[] {
  const hosts =
    typeof data === 'object' && data !== null && Array.isArray((data as { hosts?: unknown }).hosts) ? (data as { hosts: unknown[] }).hosts : undefined;
  if (hosts === undefined || hosts.length <= HOSTS_PER_VALIDATION) return validate(data) ? [] : [...(validate.errors ?? [])];
  const errors: ErrorObject[] = [];
  for (let start = 0; start < hosts.length; start += HOSTS_PER_VALIDATION) {
    const slice = hosts.slice(start, start + HOSTS_PER_VALIDATION);
    // The first call sees every other key too; the later ones only their hosts.
    const part = start === 0 ? { ...(data as object), hosts: slice } : { hosts: slice };
    if (validate(part)) continue;
    for (const error of validate.errors ?? []) {
      const m = /^\/hosts\/(\d+)(.*)$/.exec(error.instancePath);
      errors.push(m && start > 0 ? { ...error, instancePath: `/hosts/${Number(m[1]) + start}${m[2]}` } : error);
    }
  }
  return errors;
}

function pathSegments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function branchAccepts(branch: unknown, type: string): boolean {
  const declared = (branch as { type?: unknown }).type;
  if (declared === undefined) return true;
  const types = Array.isArray(declared) ? declared.map(String) : [String(declared)];
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

const within = (e: ErrorObject, at: string): boolean => e.instancePath === at || e.instancePath.startsWith(`${at}/`);

/**
 * A union (`true | false | { method, passwordEnv }`) makes ajv report every branch. When the
 * value's type picks exactly one branch, only that branch's errors say something useful;
 * otherwise one sentence naming every accepted form does. Returns the errors to drop and, for
 * kept branch errors at the union's own place, the union's wording.
 */
function resolveUnions(errors: readonly ErrorObject[]): { drop: Set<ErrorObject>; wording: Map<ErrorObject, string> } {
  const drop = new Set<ErrorObject>();
  const wording = new Map<ErrorObject, string>();
  errors.forEach((union, index) => {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') return;
    const branches = Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
    const members = errors.slice(0, index).filter((e) => within(e, union.instancePath) && !drop.has(e));
    const picked = branches.flatMap((b, i) => (branchAccepts(b, jsonType(union.data)) ? [i] : []));
    const chosen = picked.length === 1 ? picked[0] : undefined;
    const inChosen = (e: ErrorObject): boolean => e.schemaPath.startsWith(`${union.schemaPath}/${String(chosen)}/`) || e.instancePath !== union.instancePath;
    if (chosen === undefined || !members.some(inChosen)) {
      for (const e of members) drop.add(e);
      return;
    }
    drop.add(union);
    const unionAllowed = allowedText(union);
    for (const e of members) {
      if (!inChosen(e)) drop.add(e);
      else if (unionAllowed && e.instancePath === union.instancePath) wording.set(e, unionAllowed);
    }
  });
  return { drop, wording };
}

function knownKeys(error: ErrorObject): string[] {
  const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(parent?.properties ?? {});
}

export function schemaDiagnostics(errors: readonly ErrorObject[], map: SourceMap, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const { drop, wording } = resolveUnions(errors);
  for (const error of errors) {
    if (drop.has(error) || error.keyword === 'propertyNames') continue;
    const segments = pathSegments(error.instancePath);
    if (error.keyword === 'additionalProperties') {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const guess = closest(key, knownKeys(error));
      out.push({
        file,
        ...map.key(segments, key),
        path: formatPath([...segments, key]),
        message: `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (allowed: ${knownKeys(error).join(', ')})`,
        severity: 'error',
      });
      continue;
    }
    if (error.propertyName !== undefined) {
      // A bad map key (a group name): point at the key and show it.
      const key = error.propertyName;
      const allowed = allowedText(error);
      const message = allowed ? `must be ${allowed} (got ${shown(key)})` : `is not an allowed name (got ${shown(key)})`;
      out.push({ file, ...map.key(segments, key), path: formatPath([...segments, key]), message, severity: 'error' });
      continue;
    }
    const path = formatPath(segments);
    const message = messageFor(error, wording.get(error));
    // One message per place: "must be an integer 1-65535" covers type, minimum and maximum.
    const dedupeKey = `${path}\u0000${error.keyword === 'required' ? message : (allowedText(error) ?? wording.get(error) ?? error.keyword)}`;
    if (seen.has(dedupeKey)) continue;
    seen.add(dedupeKey);
    out.push({ file, ...map.value(segments), path, message, severity: 'error' });
  }
  return out;
}
