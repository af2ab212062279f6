// What a long wait says while it waits: a wait may last minutes (rolled workloads, a learner
// catching up, Nodes Ready), and a run that prints nothing all that time looks hung. Every
// `everyMs` (20 s by default, well inside the 15-30 s after which an operator starts to wonder)
// it reports how long it has waited and what is still awaited.

export interface WaitProgress<T> {
  /** How often to report (default WAIT_PROGRESS_EVERY_MS). */
  readonly everyMs?: number;
  /** What is still awaited, from the last answer (undefined: no answer yet). */
  readonly describe: (last: T | undefined) => string;
  /** Where the line goes: a task's ApplyContext.progress. */
  readonly report: (line: string) => void;
}

export const WAIT_PROGRESS_EVERY_MS = 20_000;

/**
 * A reporter for one wait that began at `startedAt` and may last `timeoutMs`: call it after
 * each try; it reports only when `everyMs` passed since the start or its last report.
 */
export function waitProgressReporter<T>(
  progress: WaitProgress<T>,
  startedAt: number,
  timeoutMs: number,
): (now: number, last: T | undefined, slowProbes?: number) => void {
  const everyMs = progress.everyMs ?? WAIT_PROGRESS_EVERY_MS;
  let reportedAt = startedAt;
  return (now, last, slowProbes = 0) => {
    if (now - reportedAt < everyMs) return;
    reportedAt = now;
    const slow = slowProbes > 0 ? ` (${slowProbes} probe(s) ran past their time limit)` : '';
    progress.report(`still waiting after ${Math.round((now - startedAt) / 1000)} s (of ${Math.round(timeoutMs / 1000)} s): ${progress.describe(last)}${slow}`);
  };
}
