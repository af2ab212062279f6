// The one polling loop of waits (API server ready, node Ready, pod CIDR assigned): probe, and
// again every interval, until the state is reached, the deadline passes or the run is
// interrupted. A probe that ran past its own time limit (a slow or overloaded host, an API
// server still starting) is "not yet", not a failure: only the wait's own deadline ends it.
// Any other error of a probe (the host unreachable, a parse error) ends the wait at once.
// With `progress`, the wait says every 20 s what it still awaits (see wait-progress.ts).
import { CommandStoppedError } from '../ssh/command-stopped-error.js';
import { waitProgressReporter, type WaitProgress } from './wait-progress.js';

export interface PollOptions<T> {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly signal: AbortSignal;
  readonly probe: () => Promise<T>;
  readonly done: (value: T) => boolean;
  /** Said while waiting: what is still awaited, every 20 s (never once done). */
  readonly progress?: WaitProgress<T>;
  /** Injectable for tests (default: real time). */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export type PollOutcome<T> =
  { readonly reached: true; readonly value: T } | { readonly reached: false; readonly last?: T; readonly slowProbes: number; readonly interrupted: boolean };

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function pollUntil<T>(options: PollOptions<T>): Promise<PollOutcome<T>> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const startedAt = now();
  const deadline = startedAt + options.timeoutMs;
  const tell = options.progress === undefined ? undefined : waitProgressReporter(options.progress, startedAt, options.timeoutMs);
  let last: T | undefined;
  let slowProbes = 0;
  for (;;) {
    if (options.signal.aborted) return { reached: false, ...(last !== undefined ? { last } : {}), slowProbes, interrupted: true };
    try {
      last = await options.probe();
      if (options.done(last)) return { reached: true, value: last };
    } catch (error) {
      if (!(error instanceof CommandStoppedError && error.timedOut)) throw error;
      slowProbes += 1;
    }
    if (now() >= deadline) return { reached: false, ...(last !== undefined ? { last } : {}), slowProbes, interrupted: false };
    tell?.(now(), last, slowProbes);
    await sleep(Math.min(options.intervalMs, Math.max(0, deadline - now())));
  }
}
