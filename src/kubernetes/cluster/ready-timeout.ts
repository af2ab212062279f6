// How long a wait for the cluster to come up may take (the control plane ready, the addons
// running): 300 s and 600 s by default, enough for real machines; a node under emulation (a VM
// without hardware virtualisation) may need longer, set with the var `readyTimeoutSeconds`.
import type { Vars } from '../../orchestrator/inventory/model.js';
import { HostError } from '../../orchestrator/ssh/host-error.js';

export const READY_TIMEOUT_VAR = 'readyTimeoutSeconds';

export function readyTimeoutMs(vars: Vars, fallbackMs: number, host: string): number {
  const value = vars[READY_TIMEOUT_VAR];
  if (value === undefined) return fallbackMs;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 10 || value > 7200) {
    throw new HostError(host, `var ${READY_TIMEOUT_VAR} must be a whole number of seconds, 10-7200 (got ${JSON.stringify(value)})`);
  }
  return Math.max(value * 1000, 0);
}
