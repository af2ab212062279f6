// --max-unavailable of the commands that change the other nodes in batches (upgrade, certs
// rotate-ca): a count or a percentage of the hosts, as a play's `serial` takes it.
import { InputError } from '../../orchestrator/engine/input-error.js';

export function parseMaxUnavailable(value: string): number | `${number}%` {
  if (/^[1-9][0-9]*$/.test(value)) return Number(value);
  if (/^([1-9][0-9]?|100)%$/.test(value)) return value as `${number}%`;
  throw new InputError(`--max-unavailable must be a count (1, 2...) or a percentage (1%-100%) (got "${value}")`);
}
