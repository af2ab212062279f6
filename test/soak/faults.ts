// The faults a step may carry, drawn from the seed. Two hit the kcluster process (SIGINT as
// Ctrl-C, SIGKILL); three hit a host of the step's inventory: its link cut for a while, its
// sshd killed (every sshd process: the listener and each connection's), or the host killed
// whole and booted again (a power cycle). A fault lands at a share of its command's expected
// duration (what the same command took in this soak before, or a first guess), so it lands
// inside the command rather than after it. Then the soak waits for the host to be back and
// resumes with what `kcluster status` names.

export type FaultKind = 'SIGINT' | 'SIGKILL' | 'link-cut' | 'sshd-kill' | 'power-cycle';

export const PROCESS_FAULTS: readonly FaultKind[] = ['SIGINT', 'SIGKILL'];
export const HOST_FAULTS: readonly FaultKind[] = ['link-cut', 'sshd-kill', 'power-cycle'];

export interface PlannedFault {
  readonly kind: FaultKind;
  /** When, as a share (0.05 to 0.95) of the command's expected duration. */
  readonly at: number;
  /** Which of the operation's commands (from 0). */
  readonly command: number;
  /** For a host fault: which of the command's hosts, as an index taken modulo their count. */
  readonly hostPick: number;
  /** For a cut link: how long it stays down. */
  readonly downSeconds: number;
}

/** The share of steps that carry a fault, unless the soak is given another (--fault-rate). */
export const FAULT_RATE = 0.5;

/** Relative frequency of each kind among the faults. */
const KIND_WEIGHTS: readonly (readonly [FaultKind, number])[] = [
  ['SIGINT', 3],
  ['SIGKILL', 3],
  ['link-cut', 2],
  ['sshd-kill', 1],
  ['power-cycle', 1],
];

function kindAt(x: number): FaultKind {
  const total = KIND_WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  let left = x * total;
  for (const [kind, weight] of KIND_WEIGHTS) {
    left -= weight;
    if (left < 0) return kind;
  }
  return KIND_WEIGHTS[KIND_WEIGHTS.length - 1]![0];
}

/** A fault for an operation of `commands` commands, or none (a share `rate` of the draws carry one). Always consumes the same count of draws. */
export function drawFault(random: { next(): number; intBelow(n: number): number }, commands: number, rate = FAULT_RATE): PlannedFault | undefined {
  // Drawn in full every time, so whether a step has a fault never shifts the steps after it.
  const hit = random.next() < rate;
  const kind = kindAt(random.next());
  const at = 0.05 + 0.9 * random.next();
  const command = random.intBelow(commands);
  const hostPick = random.intBelow(1000);
  const downSeconds = 5 + random.intBelow(36);
  if (!hit) return undefined;
  return { kind, at, command, hostPick, downSeconds };
}

/** The host a host fault hits, among the hosts of the command's inventory (sorted). */
export const faultHost = (fault: PlannedFault, hosts: readonly number[]): number => hosts[fault.hostPick % hosts.length]!;

export function describeFault(fault: PlannedFault | undefined, hostName?: (host: number) => string, hosts?: readonly number[]): string {
  if (!fault) return 'none';
  const what =
    fault.kind === 'link-cut'
      ? `link cut for ${fault.downSeconds} s`
      : fault.kind === 'sshd-kill'
        ? 'sshd killed'
        : fault.kind === 'power-cycle'
          ? 'power cycle'
          : fault.kind;
  const target = HOST_FAULTS.includes(fault.kind) && hostName && hosts ? ` on ${hostName(faultHost(fault, hosts))}` : '';
  return `${what}${target} at ${Math.round(fault.at * 100)}% of command ${fault.command + 1}`;
}
