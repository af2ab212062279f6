// Durations as people write them in an inventory and on the command line: "500ms", "30s",
// "10m", "24h", "7d". One parser for both, so the same text means the same everywhere.
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The duration in milliseconds, or undefined when `text` is not a whole number and one of ms, s, m, h, d. */
export function durationMs(text: string): number | undefined {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
}
