// The soak's seeded generator: the same seed gives the same numbers, others differ, every value is in range.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../soak/prng.js';

const draws = (seed: number, n: number): number[] => {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => r.next());
};

describe('mulberry32', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    expect(draws(42, 50)).toEqual(draws(42, 50));
    expect(draws(42, 50)).not.toEqual(draws(43, 50));
  });

  it('stays in [0, 1), and intBelow in [0, n) reaching both ends', () => {
    const r = mulberry32(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = r.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      seen.add(r.intBelow(5));
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses intBelow(0) and a pick from nothing', () => {
    const r = mulberry32(1);
    expect(() => r.intBelow(0)).toThrow(RangeError);
    expect(() => r.pick([])).toThrow(RangeError);
  });
});
