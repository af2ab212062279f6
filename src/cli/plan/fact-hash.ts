// A fact value's fingerprint for plan files: sha256 of a canonical JSON form of the parsed
// value (keys sorted; Buffers, Maps and Sets spelled out, so no content is lost on the way),
// salted with the plan's own random salt so that two plans' hashes of one value differ.
import { createHash } from 'node:crypto';

/** Pure: the same value gives the same text whatever the order its keys were set in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

function canonical(value: unknown): unknown {
  if (value === undefined) return { $undefined: true };
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : { $number: String(value) };
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (typeof value === 'function' || typeof value === 'symbol') return { $unhashable: typeof value };
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('hex') };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof Map) return { $map: [...value.entries()].map(([k, v]) => [canonical(k), canonical(v)]).sort((a, b) => compareJson(a[0], b[0])) };
  if (value instanceof Set) return { $set: [...value].map(canonical).sort(compareJson) };
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, canonical(object[key])]),
  );
}

function compareJson(a: unknown, b: unknown): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** sha256 (hex) of the salt, a NUL, and the value's canonical JSON. */
export function factHash(salt: string, value: unknown): string {
  return createHash('sha256').update(salt).update('\0').update(canonicalJson(value)).digest('hex');
}
