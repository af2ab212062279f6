// The closing recap: one row per host, then one line for the run.
import type { RunSummary } from '../engine/recap.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

export function recapTable(summary: RunSummary): string {
  const header = ['host', 'ok', 'changed', 'skipped', 'failed', 'unreachable', 'round-trips', 'time'];
  const rows = summary.hosts.map((h) => [
    h.host,
    String(h.ok),
    String(h.changed),
    String(h.skipped),
    String(h.failed),
    h.unreachable ? '1' : '0',
    String(h.roundTrips),
    seconds(h.durationMs),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const changed = summary.hosts.reduce((n, h) => n + h.changed, 0);
  const failed = summary.hosts.filter((h) => h.failed > 0).length;
  const unreachable = summary.hosts.filter((h) => h.unreachable).length;
  const verdict = summary.check
    ? `would change ${changed} task(s)${changed === 0 ? ': everything is already in place' : ''}`
    : changed === 0
      ? '0 changed: everything was already in place'
      : `${changed} task(s) changed`;
  const problems = [failed ? `${failed} failed` : '', unreachable ? `${unreachable} unreachable` : '', summary.interrupted ? 'interrupted' : '']
    .filter(Boolean)
    .join(', ');
  return [
    `RECAP ${summary.playbook}${summary.check ? ' (check mode: nothing was changed)' : ''}`,
    line(header),
    ...rows.map(line),
    `${summary.hosts.length} host(s), ${verdict}${problems ? `; ${problems}` : ''}, ${seconds(summary.durationMs)}`,
  ].join('\n');
}
