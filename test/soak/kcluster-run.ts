// One kcluster command of the soak, as a child process with `--output json` (CI=true, no
// prompt), and the planned fault delivered to it: the signal after a delay, or on the k-th
// task-result event as the events arrive (as kclusterWatched does for the e2e tests). A command
// still running after `limitMs` is killed and says so: the soak never waits for ever.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { forEachLine } from '../e2e/support/kcluster-watched.js';
import { repoRoot } from '../integration/support/test-lab.js';
import type { FaultMoment, FaultSignal } from './faults.js';

export interface FaultToDeliver {
  readonly signal: FaultSignal;
  readonly moment: FaultMoment;
}

export interface KclusterRun {
  readonly args: readonly string[];
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly seconds: number;
  /** What was delivered and when ("SIGKILL at 12.3 s"), when the fault reached the process. */
  readonly delivered?: string;
  readonly timedOut: boolean;
}

export const COMMAND_LIMIT_MS = 45 * 60_000;

const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  code ?? (signal === 'SIGKILL' ? 137 : signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : 1);

export async function runKcluster(args: readonly string[], fault?: FaultToDeliver, limitMs = COMMAND_LIMIT_MS): Promise<KclusterRun> {
  // Once: a resumed command taken from `kcluster status` may carry --output json already.
  const full = args.includes('--output') || args.includes('-o') ? [...args] : [...args, '--output', 'json'];
  const started = Date.now();
  const child = spawn(process.execPath, [join(repoRoot, 'bin/kcluster.js'), ...full], {
    cwd: repoRoot,
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
  });
  let out = '';
  let err = '';
  let taskResults = 0;
  let delivered: string | undefined;
  let timedOut = false;
  const deliver = (): void => {
    if (delivered !== undefined || !fault || child.exitCode !== null || child.signalCode !== null) return;
    delivered = `${fault.signal} at ${((Date.now() - started) / 1000).toFixed(1)} s`;
    child.kill(fault.signal);
  };
  const delay = fault?.moment.kind === 'after-ms' ? setTimeout(deliver, fault.moment.ms) : undefined;
  const limit = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), limitMs);
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  forEachLine(child.stdout, (line) => {
    if (!line.startsWith('{') || fault?.moment.kind !== 'task-result') return;
    try {
      if ((JSON.parse(line) as { type?: unknown }).type === 'task-result' && ++taskResults === fault.moment.k) deliver();
    } catch {
      // Not an event line (a JSON document of another command): nothing to count.
    }
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c, signal) => resolve(exitCodeOf(c, signal))));
  clearTimeout(delay);
  clearTimeout(limit);
  return { args: full, code, out, err, seconds: (Date.now() - started) / 1000, timedOut, ...(delivered !== undefined ? { delivered } : {}) };
}

/** The end of a run's output, for a violation's message. */
export const tailOf = (run: KclusterRun, chars = 2000): string => `${run.err.slice(-chars)}${run.out.slice(-chars)}`;
