// Merge vars: plain objects merge key by key; arrays and scalars from `over` replace.
// The result shares nothing with its inputs, so one host's vars never alias another's.
import type { Vars } from './model.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (isPlainObject(value)) return deepMerge({}, value);
  return value;
}

export function deepMerge(base: Vars, over: Vars): Vars {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) out[key] = copy(value);
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : copy(value);
  }
  return out;
}
