// One duration parser for the inventory and the command line: the same text means the same.
import { describe, expect, it } from 'vitest';
import { durationMs } from '../../../src/orchestrator/util/duration.js';
import { parseDuration as inventoryDuration } from '../../../src/kubernetes/inventory/resolve-inventory.js';
import { parseDuration as flagDuration } from '../../../src/cli/commands/certs-rotate-ca.js';

describe('durationMs', () => {
  it('reads ms, s, m, h and d', () => {
    expect(['500ms', '30s', '10m', '24h', '7d'].map(durationMs)).toEqual([500, 30_000, 600_000, 86_400_000, 604_800_000]);
  });

  it('is undefined for anything else', () => {
    for (const bad of ['', '10', '1.5s', '-5s', '5 s', '1w', 's']) expect(durationMs(bad), bad).toBeUndefined();
  });

  it('gives the inventory and the flags the same milliseconds for the same text', () => {
    for (const text of ['30s', '10m']) expect(inventoryDuration(text, -1)).toBe(flagDuration(text, '--keep-old-key'));
    expect(inventoryDuration('nonsense', -1)).toBe(-1);
    expect(() => flagDuration('0s', '--keep-old-key')).toThrow('--keep-old-key 0s: give a duration such as 90s, 30m, 24h or 7d');
  });
});
