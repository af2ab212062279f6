// The ready-wait deadline a slow (emulated) node can lengthen through a var.
import { describe, expect, it } from 'vitest';
import { readyTimeoutMs } from '../../../src/kubernetes/cluster/ready-timeout.js';

describe('readyTimeoutSeconds', () => {
  it('defaults, takes whole seconds within bounds, and refuses anything else with the host named', () => {
    expect(readyTimeoutMs({}, 300_000, 'cp1')).toBe(300_000);
    expect(readyTimeoutMs({ readyTimeoutSeconds: 1200 }, 300_000, 'cp1')).toBe(1_200_000);
    for (const bad of [0, 9, 7201, 1.5, '900', null]) {
      expect(() => readyTimeoutMs({ readyTimeoutSeconds: bad }, 300_000, 'cp1'), String(bad)).toThrow(
        'cp1: var readyTimeoutSeconds must be a whole number of seconds, 10-7200',
      );
    }
  });
});
