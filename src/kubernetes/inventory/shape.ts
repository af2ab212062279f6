// Guards for reading a document that may have failed the schema: the semantic checks still
// run on it, and must not trip over a value of the wrong type.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringAt(value: unknown, key: string): string | undefined {
  const v = isRecord(value) ? value[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

export function recordAt(value: unknown, key: string): Record<string, unknown> | undefined {
  const v = isRecord(value) ? value[key] : undefined;
  return isRecord(v) ? v : undefined;
}

export function listAt(value: unknown, key: string): unknown[] | undefined {
  const v = isRecord(value) ? value[key] : undefined;
  return Array.isArray(v) ? v : undefined;
}
