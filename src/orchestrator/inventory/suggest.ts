// "did you mean ...?" for misspelt keys and names.

/** Edit distance counting a swap of two neighbouring letters as one edit ("prot" -> "port"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Longer words get no suggestion: the distance costs the product of both lengths. */
const MAX_SUGGESTED_LENGTH = 100;

/**
 * The closest candidate within a small edit distance (letter case ignored), if any; the
 * distance allowed grows with the word (1 to 3) unless `maxDistance` sets it.
 */
export function closest(word: string, candidates: readonly string[], maxDistance?: number): string | undefined {
  if (word.length > MAX_SUGGESTED_LENGTH) return undefined;
  const limit = maxDistance ?? Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    // Lengths further apart than the limit cannot be within it.
    if (Math.abs(c.length - word.length) > limit) continue;
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
