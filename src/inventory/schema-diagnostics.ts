// Validate the parsed document against the shipped JSON Schema (ajv, allErrors) and turn
// every ajv error into a sentence that says what is wrong and what is allowed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { packageRoot } from '../util/package-root.js';
import { formatPath, type Diagnostic } from './diagnostics.js';
import type { SourceMap } from './source-map.js';
import { closest } from './suggest.js';

export const SCHEMA_PATH = join('src', 'inventory', 'inventory.schema.json');

export function compileInventorySchema(): ValidateFunction {
  const schema = JSON.parse(readFileSync(join(packageRoot(), SCHEMA_PATH), 'utf8')) as object;
  const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, allowUnionTypes: true });
  // Our one extra keyword: the plain-words description of what a field accepts.
  ajv.addKeyword({ keyword: 'allowed', schemaType: 'string' });
  return ajv.compile(schema);
}

function pathSegments(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^[0-9]+$/.test(s) ? Number(s) : s));
}

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function allowedText(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as { allowed?: unknown } | undefined;
  return typeof parent?.allowed === 'string' ? parent.allowed : undefined;
}

function messageFor(error: ErrorObject): string {
  const allowed = allowedText(error);
  const got = ` (got ${shown(error.data)})`;
  switch (error.keyword) {
    case 'enum': {
      const values = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => String(v));
      const guess = typeof error.data === 'string' ? closest(error.data, values) : undefined;
      return `must be one of ${values.join(', ')}${got}${guess ? `; did you mean "${guess}"?` : ''}`;
    }
    case 'required':
      return `missing required key "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'minItems':
      return allowed ? `must be ${allowed}` : `must have at least ${(error.params as { limit: number }).limit} item(s)`;
    case 'uniqueItems':
      return `must not repeat an item${got}`;
    default:
      return allowed ? `must be ${allowed}${got}` : `${error.message ?? 'is invalid'}${got}`;
  }
}

function knownKeys(error: ErrorObject): string[] {
  const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(parent?.properties ?? {});
}

export function schemaDiagnostics(errors: readonly ErrorObject[], map: SourceMap, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seenPaths = new Set<string>();
  // anyOf/oneOf report each branch's failure and then their own: keep the union's message only.
  const unionPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    const segments = pathSegments(error.instancePath);
    if (error.keyword === 'additionalProperties') {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const guess = closest(key, knownKeys(error));
      const pos = map.key(segments, key);
      out.push({
        file,
        ...pos,
        path: formatPath([...segments, key]),
        message: `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (allowed: ${knownKeys(error).join(', ')})`,
        severity: 'error',
      });
      continue;
    }
    if (unionPaths.has(error.instancePath) && error.keyword !== 'anyOf') continue;
    // A union whose object branch reported a deeper, more precise error: keep only that one.
    if (error.keyword === 'anyOf' && errors.some((e) => e.instancePath.startsWith(`${error.instancePath}/`))) continue;
    if (error.keyword === 'propertyNames') continue; // reported through the nested pattern error
    const path = formatPath(segments);
    // One message per place: "must be an integer 1-65535" covers type, minimum and maximum.
    const dedupeKey = `${path}\u0000${error.keyword === 'required' ? (error.params as { missingProperty: string }).missingProperty : allowedText(error) ?? error.keyword}`;
    if (seenPaths.has(dedupeKey)) continue;
    seenPaths.add(dedupeKey);
    out.push({ file, ...map.value(segments), path, message: messageFor(error), severity: 'error' });
  }
  return out;
}
