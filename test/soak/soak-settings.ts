// The soak's settings, from the environment test/soak/run.sh sets from `npm run soak -- --seed N
// --steps M [--topology single|ha] [--keep]`. Pure; a bad value is an error that names it.
import type { Topology } from './cluster-model.js';

export interface SoakSettings {
  readonly seed: number;
  readonly steps: number;
  readonly topology: Topology;
  /** Leave the lab up afterwards (to look at a failure). */
  readonly keep: boolean;
}

const MAX_STEPS = 1000;

function wholeNumber(name: string, value: string | undefined, min: number, max: number): number {
  if (value === undefined || value === '') throw new Error(`${name} is not set: run the soak with npm run soak -- --seed N --steps M`);
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
  return n;
}

export function soakSettingsFrom(env: Readonly<Record<string, string | undefined>>): SoakSettings {
  const topology = env['KCLUSTER_SOAK_TOPOLOGY'] ?? 'single';
  if (topology !== 'single' && topology !== 'ha') throw new Error(`KCLUSTER_SOAK_TOPOLOGY must be single or ha (got "${topology}")`);
  return {
    seed: wholeNumber('KCLUSTER_SOAK_SEED', env['KCLUSTER_SOAK_SEED'], 0, 0xffffffff),
    steps: wholeNumber('KCLUSTER_SOAK_STEPS', env['KCLUSTER_SOAK_STEPS'], 1, MAX_STEPS),
    topology,
    keep: env['KCLUSTER_SOAK_KEEP'] === '1',
  };
}
