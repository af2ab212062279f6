// The faults a step may carry, drawn from the seed: the kcluster process of one of the step's
// commands gets SIGINT (Ctrl-C) or SIGKILL, after a delay or on its k-th task result (of the
// `--output json` events), whichever the draw says. Then the soak resumes with what `kcluster
// status` names. Host kills, sshd kills and cut links are more kinds here later.

export type FaultSignal = 'SIGINT' | 'SIGKILL';

export type FaultMoment = { readonly kind: 'after-ms'; readonly ms: number } | { readonly kind: 'task-result'; readonly k: number };

export interface PlannedFault {
  readonly signal: FaultSignal;
  readonly moment: FaultMoment;
  /** Which of the operation's commands (from 0). */
  readonly command: number;
}

/** The share of steps that carry a fault. */
export const FAULT_RATE = 0.3;

/** A fault for an operation of `commands` commands, or none (about 70% of draws). Always consumes the same count of draws. */
export function drawFault(random: { next(): number; intBelow(n: number): number }, commands: number): PlannedFault | undefined {
  // Drawn in full every time, so whether a step has a fault never shifts the steps after it.
  const hit = random.next() < FAULT_RATE;
  const signal: FaultSignal = random.next() < 0.5 ? 'SIGINT' : 'SIGKILL';
  const byTime = random.next() < 0.5;
  const ms = 1_000 + random.intBelow(90_000);
  const k = 1 + random.intBelow(60);
  const command = random.intBelow(commands);
  if (!hit) return undefined;
  return { signal, moment: byTime ? { kind: 'after-ms', ms } : { kind: 'task-result', k }, command };
}

export function describeFault(fault: PlannedFault | undefined): string {
  if (!fault) return 'none';
  const when = fault.moment.kind === 'after-ms' ? `after ${(fault.moment.ms / 1000).toFixed(1)} s` : `on task result ${fault.moment.k}`;
  return `${fault.signal} ${when} of command ${fault.command + 1}`;
}
