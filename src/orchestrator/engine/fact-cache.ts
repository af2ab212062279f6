// Facts known about one host during a run, and which of them a change made stale.
export class FactCache {
  private readonly values = new Map<string, unknown>();

  has(key: string): boolean {
    return this.values.has(key);
  }

  get(key: string): unknown {
    return this.values.get(key);
  }

  set(key: string, value: unknown): void {
    this.values.set(key, value);
  }

  /** Forget exact keys, or every key starting with a prefix given as "prefix*". */
  invalidate(patterns: readonly string[]): void {
    for (const pattern of patterns) {
      if (pattern.endsWith('*')) {
        const prefix = pattern.slice(0, -1);
        for (const key of [...this.values.keys()]) if (key.startsWith(prefix)) this.values.delete(key);
      } else {
        this.values.delete(pattern);
      }
    }
  }
}
