// How long each command of the soak is expected to take, so a fault drawn "at 40%" lands inside
// it: what the same command of the same operation (an apply that adds a control plane is not
// the no-op apply after a reboot) took the last time it ran without a fault in this soak, or a
// first guess by the command's words until then. Timing is not seeded: only the share is.

/** First guesses by the command's leading words (the longest match wins). */
const FIRST_GUESS_MS: readonly (readonly [string, number])[] = [
  ['apply', 20_000],
  ['remove-node', 15_000],
  ['certs renew', 100_000],
  ['certs rotate-ca', 300_000],
  ['certs rotate-ca --yes --service-account-key', 90_000],
  ['secrets rotate-key', 55_000],
  ['etcd snapshot save', 3_000],
  ['upgrade', 150_000],
];
const DEFAULT_GUESS_MS = 20_000;

/** The command's identity for timing: its arguments without `-i FILE` and host-specific values kept as they are. */
export function commandSignature(args: readonly string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-i' || args[i] === '--inventory') {
      i++;
      continue;
    }
    if (args[i] === '--output' || args[i] === '-o') {
      i++;
      continue;
    }
    kept.push(args[i]!);
  }
  return kept.join(' ');
}

export class ExpectedDurations {
  private readonly seen = new Map<string, number>();

  /** `operation`: which operation and which of its commands ("remove-worker#2"); the guess goes by `args`. */
  expectedMs(operation: string, args: readonly string[]): number {
    const signature = commandSignature(args);
    const seen = this.seen.get(`${operation} ${signature}`);
    if (seen !== undefined) return seen;
    let best: readonly [string, number] | undefined;
    for (const guess of FIRST_GUESS_MS)
      if ((signature === guess[0] || signature.startsWith(`${guess[0]} `)) && (best === undefined || guess[0].length > best[0].length)) best = guess;
    return best?.[1] ?? DEFAULT_GUESS_MS;
  }

  /** A run without a fault that succeeded. */
  record(operation: string, args: readonly string[], ms: number): void {
    this.seen.set(`${operation} ${commandSignature(args)}`, ms);
  }
}
