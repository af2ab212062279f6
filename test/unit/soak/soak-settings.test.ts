// The soak's settings from the environment run.sh sets: a bad value is refused by name.
import { describe, expect, it } from 'vitest';
import { soakSettingsFrom } from '../../soak/soak-settings.js';

describe('soakSettingsFrom', () => {
  it('reads seed, steps, topology (single by default), the fault rate (0.5 by default) and keep', () => {
    expect(soakSettingsFrom({ KCLUSTER_SOAK_SEED: '7', KCLUSTER_SOAK_STEPS: '20' })).toEqual({
      seed: 7,
      steps: 20,
      topology: 'single',
      faultRate: 0.5,
      keep: false,
    });
    expect(
      soakSettingsFrom({
        KCLUSTER_SOAK_SEED: '0',
        KCLUSTER_SOAK_STEPS: '1',
        KCLUSTER_SOAK_TOPOLOGY: 'ha',
        KCLUSTER_SOAK_FAULT_RATE: '0.8',
        KCLUSTER_SOAK_KEEP: '1',
      }),
    ).toEqual({
      seed: 0,
      steps: 1,
      topology: 'ha',
      faultRate: 0.8,
      keep: true,
    });
  });

  it('refuses what is missing, not a whole number, out of range, or an unknown topology', () => {
    expect(() => soakSettingsFrom({ KCLUSTER_SOAK_STEPS: '3' })).toThrow('KCLUSTER_SOAK_SEED is not set');
    expect(() => soakSettingsFrom({ KCLUSTER_SOAK_SEED: '1.5', KCLUSTER_SOAK_STEPS: '3' })).toThrow('KCLUSTER_SOAK_SEED must be a whole number');
    expect(() => soakSettingsFrom({ KCLUSTER_SOAK_SEED: '1', KCLUSTER_SOAK_STEPS: '0' })).toThrow('KCLUSTER_SOAK_STEPS must be a whole number from 1');
    expect(() => soakSettingsFrom({ KCLUSTER_SOAK_SEED: '4294967296', KCLUSTER_SOAK_STEPS: '3' })).toThrow('KCLUSTER_SOAK_SEED');
    expect(() => soakSettingsFrom({ KCLUSTER_SOAK_SEED: '1', KCLUSTER_SOAK_STEPS: '3', KCLUSTER_SOAK_TOPOLOGY: 'big' })).toThrow('single or ha');
    for (const rate of ['1.5', '-0.1', 'most', '.', '0.8x'])
      expect(() => soakSettingsFrom({ KCLUSTER_SOAK_SEED: '1', KCLUSTER_SOAK_STEPS: '3', KCLUSTER_SOAK_FAULT_RATE: rate })).toThrow(
        `KCLUSTER_SOAK_FAULT_RATE must be a share from 0 to 1, such as 0.8 (got "${rate}")`,
      );
    expect(soakSettingsFrom({ KCLUSTER_SOAK_SEED: '1', KCLUSTER_SOAK_STEPS: '3', KCLUSTER_SOAK_FAULT_RATE: '1' }).faultRate).toBe(1);
  });
});
