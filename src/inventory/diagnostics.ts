// A problem found in an inventory, with the exact place it was found.

export interface Diagnostic {
  /** The file as the user named it (relative stays relative). */
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Dotted path in the document: hosts[2].port, cluster.apiEndpoint.port. */
  readonly path: string;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

/** FILE:LINE:COL: path.to.field: what is wrong and what is allowed */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.col}`;
  const what = d.path ? `${d.path}: ${d.message}` : d.message;
  return d.severity === 'warning' ? `${where}: warning: ${what}` : `${where}: ${what}`;
}

/** Path segments (keys and indexes) as written in messages: hosts[2].port */
export function formatPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out ? `.${s}` : s;
  }
  return out;
}
