// One kcluster command of the soak, as a child process with `--output json` (CI=true, no
// prompt), and the planned fault delivered while it runs: after `atMs`, if it has not ended,
// `deliver` acts (signals the process, or does something to a host) and says what it did. A
// command still running after `limitMs` is killed and says so: the soak never waits for ever.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../integration/support/test-lab.js';

export interface FaultToDeliver {
  readonly atMs: number;
  /** Does the fault (to the running process or to a host); what it did. */
  readonly deliver: (child: ChildProcess) => Promise<string>;
}

export interface KclusterRun {
  readonly args: readonly string[];
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly seconds: number;
  /** What was delivered and when ("SIGKILL at 12.3 s"), when the fault reached the process. */
  readonly delivered?: string;
  /** Why the planned fault could not be done (a fault of the harness, not of kcluster). */
  readonly faultProblem?: string;
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
  let delivered: string | undefined;
  let faultProblem: string | undefined;
  let delivering: Promise<void> = Promise.resolve();
  let timedOut = false;
  const deliver = (): void => {
    if (!fault || child.exitCode !== null || child.signalCode !== null) return;
    const at = ((Date.now() - started) / 1000).toFixed(1);
    delivering = fault.deliver(child).then(
      (what) => void (delivered = `${what} at ${at} s`),
      (error: unknown) => void (faultProblem = `the fault could not be done at ${at} s: ${(error as Error).message}`),
    );
  };
  const delay = fault ? setTimeout(deliver, fault.atMs) : undefined;
  const limit = setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), limitMs);
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c, signal) => resolve(exitCodeOf(c, signal))));
  clearTimeout(delay);
  clearTimeout(limit);
  await delivering;
  return {
    args: full,
    code,
    out,
    err,
    seconds: (Date.now() - started) / 1000,
    timedOut,
    ...(delivered !== undefined ? { delivered } : {}),
    ...(faultProblem !== undefined ? { faultProblem } : {}),
  };
}

/** The end of a run's output, for a violation's message. */
export const tailOf = (run: KclusterRun, chars = 2000): string => `${run.err.slice(-chars)}${run.out.slice(-chars)}`;
