// `kcluster plan show`: a plan file printed as `--check --diff` prints the run it came from
// (the same plain lines, from the same events), after where and when it was made.
import type { RunEvent } from '../../orchestrator/engine/events.js';
import { plainLine } from '../../orchestrator/report/plain-reporter.js';
import { painter } from '../../orchestrator/report/paint.js';
import { commandLine } from '../journal/command-line.js';
import type { PlanFile, PlannedEntry } from './plan-file.js';

const PENDING = new Set(['create', 'update', 'delete', 'run']);

/** Pure: one entry as the task-result event --check emitted for it. */
export function entryEvent(host: string, e: PlannedEntry): RunEvent {
  const base = { type: 'task-result' as const, time: 0, play: e.play, host, role: e.role, task: e.task, durationMs: 0, roundTrips: 0, check: true };
  if (PENDING.has(e.kind)) return { ...base, status: 'changed', summary: e.summary, ...(e.diff !== undefined ? { diff: e.diff } : {}) };
  if (e.kind === 'skip') return { ...base, status: 'skipped', reason: e.summary };
  return { ...base, status: 'ok', reason: e.kind === 'wait' ? `would ${e.summary}` : e.summary };
}

/** Pure: the plan's text, host by host (hosts of a play run in parallel: the plan keeps each host's order). */
export function renderPlan(plan: PlanFile, file: string, color: boolean): string {
  const paint = painter(color);
  const lines = [
    `plan ${file}: made ${plan.createdAt} by kcluster ${plan.kclusterVersion}`,
    `  from: ${commandLine(plan.argv)}`,
    `  inventory: ${plan.inventory.file} (sha256 ${plan.inventory.sha256})`,
  ];
  let pending = 0;
  for (const { host, tasks } of plan.hosts) {
    let play: string | undefined;
    for (const entry of tasks) {
      if (entry.play !== play) {
        play = entry.play;
        lines.push(plainLine({ type: 'play-start', time: 0, play, hosts: [host] }, '', paint) ?? '');
      }
      if (PENDING.has(entry.kind)) pending += 1;
      lines.push(plainLine(entryEvent(host, entry), '', paint) ?? '');
    }
  }
  const secrets = plan.hosts.flatMap((h) => h.tasks.filter((t) => t.secret === true).map((t) => `${h.host}: ${t.task}`));
  lines.push('', `${plan.hosts.length} host(s), ${pending} change(s) planned${secrets.length > 0 ? `; secret content, not shown: ${secrets.join(', ')}` : ''}`);
  return `${lines.join('\n')}\n`;
}
