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

/**
 * Control characters (C0, DEL, C1) written as \uXXXX: an inventory value must never move the
 * operator's cursor, recolour the terminal or hide text (escape sequence injection).
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it escapes
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A list of names in a message: the first few, then how many more (5,000 hosts stay one readable line). */
export function someOf(names: readonly string[], shown = 5): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

/** FILE:LINE:COL: path.to.field: what is wrong and what is allowed */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.col}`;
  const what = d.path ? `${d.path}: ${d.message}` : d.message;
  return escapeControl(d.severity === 'warning' ? `${where}: warning: ${what}` : `${where}: ${what}`).replace(/\n/g, '\\n');
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
