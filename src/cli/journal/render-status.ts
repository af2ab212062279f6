// `kcluster status` as text: the last runs in a table, then one run in detail (what it changed
// and what failed per host, what was left and where it stopped) and the command to run next.
import { quoteWord } from '../../orchestrator/ssh/quote.js';
import type { HostOutcome, RunOutcome } from './run-outcome.js';
import { textTable } from '../../orchestrator/util/text-table.js';

/** Changes listed per host in the overview; --run lists them all. */
const SHOWN_CHANGES = 10;

export function seconds(ms: number): string {
  return ms < 100_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 60_000)} min`;
}

const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

export function runTable(runs: readonly RunOutcome[]): string {
  const rows = [
    ['ID', 'STARTED (UTC)', 'DURATION', 'RESULT', 'COMMAND'],
    ...runs.map((r) => [r.id, when(r.started), seconds(r.durationMs), r.result, r.command]),
  ];
  return `${textTable(rows)}\n`;
}

/** A run's command line as typed where status runs: with a `cd` to its folder when that is elsewhere. */
export const commandFrom = (run: Pick<RunOutcome, 'cwd' | 'command'>, cwd: string): string =>
  run.cwd === cwd ? run.command : `cd ${quoteWord(run.cwd)} && ${run.command}`;

/** What to type next: the same command again (from the folder it ran in), or nothing. */
export function nextCommand(run: RunOutcome, cwd: string): string | undefined {
  if (run.result === 'completed' || run.result === 'running') return undefined;
  return commandFrom(run, cwd);
}

function headline(run: RunOutcome): string {
  const base = `Run ${run.id} (${run.command}), started ${when(run.started)}, kcluster ${run.version}`;
  switch (run.result) {
    case 'completed':
      return `${base}: completed in ${seconds(run.durationMs)}.`;
    case 'failed':
      return `${base}: failed after ${seconds(run.durationMs)} (exit ${run.exitCode ?? '?'})${run.error !== undefined ? `: ${run.error}` : ''}.`;
    case 'interrupted':
      return `${base}: interrupted (Ctrl-C or SIGTERM) after ${seconds(run.durationMs)}; it did not finish.`;
    case 'running':
      return `${base}: still running (its process holds the state lock); last record at ${when(run.ended)}.`;
    case 'did not finish':
      return `${base}: did not finish: no end record (the process was killed, or the machine stopped); last record at ${when(run.ended)}, ${seconds(run.durationMs)} in.`;
  }
}

function hostLines(host: HostOutcome, full: boolean, id: string): string[] {
  const parts = [`${host.changed.length} changed`];
  if (host.failed.length > 0) parts.push(`${host.failed.length} failed`);
  const lines = [`  ${host.host}: ${parts.join(', ')}${host.left.length === 0 ? ', every play done' : ''}`];
  const shown = full ? host.changed : host.changed.slice(0, SHOWN_CHANGES);
  for (const c of shown) lines.push(`    changed: ${c.play} / ${c.role} / ${c.kind === 'task' ? '' : `${c.kind} `}${c.name}`);
  if (shown.length < host.changed.length) lines.push(`    ... ${host.changed.length - shown.length} more changed (kcluster status -i FILE --run ${id})`);
  for (const f of host.failed)
    lines.push(`    FAILED: ${f.play} / ${f.role} / ${f.kind === 'task' ? '' : `${f.kind} `}${f.name}${f.error !== undefined ? `: ${f.error}` : ''}`);
  for (const p of host.plays)
    if (p.state !== 'done' && p.state !== 'not started' && p.error !== undefined && host.failed.length === 0) lines.push(`    ${p.state}: ${p.error}`);
  if (host.inFlight)
    lines.push(
      `    in flight: play "${host.inFlight.play}", role ${host.inFlight.role}${host.inFlight.task !== undefined ? `, task "${host.inFlight.task}"` : ''}`,
    );
  if (host.left.length > 0) lines.push(`    left: ${host.left.map((p) => `"${p}"`).join(', ')}`);
  return lines;
}

export interface DetailOptions {
  /** Every change (--run), or the first few per host. */
  readonly full: boolean;
  /** Where status runs: the next command says `cd` when the run was started elsewhere. */
  readonly cwd: string;
  /** The inventory file is not the one the run read (sha256 differs). */
  readonly inventoryChanged: boolean;
}

export function runDetail(run: RunOutcome, options: DetailOptions): string {
  const lines = [headline(run)];
  if (run.hosts.length === 0) lines.push('  no host was in the run');
  for (const host of run.hosts) lines.push(...hostLines(host, options.full, run.id));
  const unfinished = run.hosts.filter((h) => h.left.length > 0).map((h) => h.host);
  if (unfinished.length > 0) lines.push(`Hosts that did not finish their plays: ${unfinished.join(', ')}.`);
  if (options.inventoryChanged)
    lines.push(
      `The inventory ${run.inventory.file} is not the one this run read (changed since, or gone: the run read sha256 ${run.inventory.sha256.slice(0, 12)}...).`,
    );
  const next = nextCommand(run, options.cwd);
  if (next !== undefined)
    lines.push(
      `Run next (every task is idempotent: the same command converges what was left${run.result === 'failed' ? ', once what failed is fixed' : ''}):`,
      `  ${next}`,
    );
  return lines.join('\n') + '\n';
}
