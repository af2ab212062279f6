// The soak's only source of randomness: mulberry32, a 32-bit seeded generator. The plan of
// operations and faults must be a pure function of the seed so that a failing seed replays the
// same run; Math.random would make every run a new one.

export interface Random {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [0, n). */
  intBelow(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One of the items (a non-empty list). */
  pick<T>(items: readonly T[]): T;
}

export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const intBelow = (n: number): number => {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`intBelow needs a whole number of 1 or more (got ${n})`);
    return Math.floor(next() * n);
  };
  return {
    next,
    intBelow,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[intBelow(items.length)]!;
    },
  };
}
