// /etc/os-release, parsed (see os-release(5)): the one input that picks a host's OS adapter.

export interface OsRelease {
  readonly id: string;
  readonly idLike: readonly string[];
  readonly versionId: string;
  readonly prettyName: string;
}

/** Undo the shell-style quoting os-release allows: "..." (with \-escapes) or '...'. */
function unquote(raw: string): string {
  const value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return value.slice(1, -1).replace(/\\(["\\`$])/g, '$1');
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  return value;
}

export function parseOsRelease(text: string): OsRelease {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m?.[1] && m[2] !== undefined) values.set(m[1], unquote(m[2]));
  }
  const id = (values.get('ID') ?? '').toLowerCase();
  return {
    // os-release(5): a missing ID means "linux".
    id: id || 'linux',
    idLike: (values.get('ID_LIKE') ?? '').toLowerCase().split(/\s+/).filter(Boolean),
    versionId: values.get('VERSION_ID') ?? '',
    prettyName: values.get('PRETTY_NAME') ?? values.get('NAME') ?? 'Linux',
  };
}
