// Facts known about one host during a run, and which of them a change made stale.
//
// With a role's concurrentTasks, one task's gather may be in flight while another task
// changes the host and invalidates the same fact: the value that gather brings back was read
// before that change, so it must not become the cache's value (the other task would then
// verify its change against a listing from before it). Each gather notes the cache's epoch when
// it starts (begin); set refuses a value when a matching invalidation came after that epoch.
export class FactCache {
  private readonly values = new Map<string, unknown>();
  private epoch = 0;
  /** Invalidations by epoch, kept only while a gather begun before them may still be storing. */
  private readonly invalidations: { readonly pattern: string; readonly epoch: number }[] = [];
  private readonly openGathers = new Map<number, number>();

  has(key: string): boolean {
    return this.values.has(key);
  }

  get(key: string): unknown {
    return this.values.get(key);
  }

  /** Starts a gather: the epoch to give set, and end() once its values are stored. */
  begin(): { readonly since: number; end(): void } {
    const since = this.epoch;
    this.openGathers.set(since, (this.openGathers.get(since) ?? 0) + 1);
    return {
      since,
      end: () => {
        const left = (this.openGathers.get(since) ?? 1) - 1;
        if (left > 0) this.openGathers.set(since, left);
        else this.openGathers.delete(since);
        this.forgetSettledInvalidations();
      },
    };
  }

  /**
   * Stores a fact's value; with `since` (from begin), only when no invalidation matching the key
   * came after it. Says whether it stored it.
   */
  set(key: string, value: unknown, since?: number): boolean {
    if (since !== undefined && this.invalidations.some((i) => i.epoch > since && matches(i.pattern, key))) return false;
    this.values.set(key, value);
    return true;
  }

  /** Forget exact keys, or every key starting with a prefix given as "prefix*". */
  invalidate(patterns: readonly string[]): void {
    this.epoch += 1;
    for (const pattern of patterns) {
      if (this.openGathers.size > 0) this.invalidations.push({ pattern, epoch: this.epoch });
      for (const key of [...this.values.keys()]) if (matches(pattern, key)) this.values.delete(key);
    }
  }

  private forgetSettledInvalidations(): void {
    const oldest = Math.min(...this.openGathers.keys());
    // No open gather began before these: nothing can store against them any more.
    for (let i = this.invalidations.length - 1; i >= 0; i -= 1) if (this.invalidations[i]!.epoch <= oldest) this.invalidations.splice(i, 1);
  }
}

function matches(pattern: string, key: string): boolean {
  return pattern.endsWith('*') ? key.startsWith(pattern.slice(0, -1)) : key === pattern;
}
