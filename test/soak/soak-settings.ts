// The soak's settings, from the environment test/soak/run.sh sets from `npm run soak -- --seed N
// --steps M [--topology single|ha] [--fault-rate P] [--keep]`. Pure; a bad value is an error that names it.
import type { Topology } from './cluster-model.js';
import { FAULT_RATE } from './faults.js';

export interface SoakSettings {
  readonly seed: number;
  readonly steps: number;
  readonly topology: Topology;
  /** The share of steps that carry a fault (0 to 1). */
  readonly faultRate: number;
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

function share(name: string, value: string | undefined): number {
  if (value === undefined || value === '') return FAULT_RATE;
  const n = Number(value);
  if (!/^(0|1|0?\.\d+|1\.0*)$/.test(value) || !(n >= 0 && n <= 1)) throw new Error(`${name} must be a share from 0 to 1, such as 0.8 (got "${value}")`);
  return n;
}

export function soakSettingsFrom(env: Readonly<Record<string, string | undefined>>): SoakSettings {
  const topology = env['KCLUSTER_SOAK_TOPOLOGY'] ?? 'single';
  if (topology !== 'single' && topology !== 'ha') throw new Error(`KCLUSTER_SOAK_TOPOLOGY must be single or ha (got "${topology}")`);
  return {
    seed: wholeNumber('KCLUSTER_SOAK_SEED', env['KCLUSTER_SOAK_SEED'], 0, 0xffffffff),
    steps: wholeNumber('KCLUSTER_SOAK_STEPS', env['KCLUSTER_SOAK_STEPS'], 1, MAX_STEPS),
    topology,
    faultRate: share('KCLUSTER_SOAK_FAULT_RATE', env['KCLUSTER_SOAK_FAULT_RATE']),
    keep: env['KCLUSTER_SOAK_KEEP'] === '1',
  };
}
