// The one way kcluster prints a table on a terminal: the first row is the header, columns two
// spaces apart, each as wide as its widest cell, numbers right-aligned where asked, no trailing
// spaces. Used by facts, the recap, certs check, status, artifacts list and etcd snapshot list.

export interface TextTableOptions {
  /** Columns whose cells line up on the right (counts, durations). */
  readonly rightAligned?: (column: number) => boolean;
}

/** The rows as aligned lines joined by newlines (no newline after the last). */
export function textTable(rows: readonly (readonly string[])[], options: TextTableOptions = {}): string {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(0, ...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (options.rightAligned?.(i) === true ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
