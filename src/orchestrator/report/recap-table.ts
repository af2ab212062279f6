// The closing recap: one row per host, then one line for the run, then where the debug log is
// when anything went wrong.
import type { RunSummary } from '../engine/recap.js';
import { textTable } from '../util/text-table.js';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function recapTable(summary: RunSummary, debugLogPath?: string): string {
  const header = ['host', 'ok', 'changed', 'skipped', 'failed', 'unreachable', 'round-trips', 'time'];
  const rows = summary.hosts.map((h) => [
    h.host,
    String(h.ok),
    String(h.changed),
    String(h.skipped),
    String(h.failed),
    h.unreachable ? 'yes' : '-',
    String(h.roundTrips),
    seconds(h.durationMs),
  ]);
  const changed = summary.hosts.reduce((n, h) => n + h.changed, 0);
  const failed = summary.hosts.filter((h) => h.failed > 0).length;
  const unreachable = summary.hosts.filter((h) => h.unreachable).length;
  const verdict = summary.check ? `would change ${plural(changed, 'task')}` : `${changed} changed ${changed === 1 ? 'task' : 'tasks'}`;
  const problems = [failed ? `${failed} failed` : '', unreachable ? `${unreachable} unreachable` : '', summary.interrupted ? 'interrupted' : '']
    .filter(Boolean)
    .join(', ');
  const lines = [
    `RECAP ${summary.playbook}${summary.check ? ' (check mode: nothing was changed)' : ''}`,
    textTable([header, ...rows], { rightAligned: (column) => column > 0 }),
    `${plural(summary.hosts.length, 'host')}, ${verdict}${problems ? `; ${problems}` : ''} in ${seconds(summary.durationMs)}`,
  ];
  if ((failed > 0 || unreachable > 0 || summary.interrupted) && debugLogPath) lines.push(`debug log: ${debugLogPath}`);
  return lines.join('\n');
}
