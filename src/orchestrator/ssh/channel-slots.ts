// Bounds the channels open at once on one SSH connection. OpenSSH refuses channels beyond
// its MaxSessions (10 by default) with "open failed", which would look like a broken host;
// waiting for a free slot instead keeps "many concurrent commands" safe on stock servers (and a
// refusal met while the server is still freeing a closed session is tried again: ssh-connection.ts).

/** Below OpenSSH's default MaxSessions (10), leaving room for a forwarded channel or two. */
export const DEFAULT_CHANNEL_SLOTS = 8;

export class ChannelSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number = DEFAULT_CHANNEL_SLOTS) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`channel slots must be a positive integer (got ${limit})`);
  }

  /** Resolves when a slot is free; the returned function gives it back (call it once). */
  async acquire(): Promise<() => void> {
    if (this.active < this.limit) this.active += 1;
    // A released slot is handed straight to the next waiter, so nobody can slip in between.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    };
  }
}
