// A CA or service-account key rotation is several runs, one per phase, and its state lives in
// the state folder (pki/rotation/state.json), not in one run's journal: a rotation killed
// between two phases leaves a last run that "completed". Status names it from that state, with
// the rotate-ca command the operator typed last (its flags choose the workloads it rolls).
import { quoteWord } from '../../orchestrator/ssh/quote.js';
import type { CaRotation } from '../../kubernetes/pki/ca-rotation.js';
import { commandFrom } from './render-status.js';
import type { RunOutcome } from './run-outcome.js';

export interface UnfinishedWorkflow {
  readonly what: string;
  readonly next: string;
}

const isRotateCa = (run: RunOutcome): boolean => run.argv[0] === 'certs' && run.argv[1] === 'rotate-ca';

/** Pure: the rotation under way (undefined: none), the runs newest first, where status runs. */
export function unfinishedRotation(
  rotation: Pick<CaRotation, 'cas' | 'phase'> | undefined,
  runs: readonly RunOutcome[],
  cwd: string,
  inventoryFile: string,
): UnfinishedWorkflow | undefined {
  if (rotation === undefined) return undefined;
  const serviceAccount = rotation.cas.includes('sa');
  const last = runs.find(isRotateCa);
  const next =
    last === undefined ? `kcluster certs rotate-ca -i ${quoteWord(inventoryFile)}${serviceAccount ? ' --service-account-key' : ''}` : commandFrom(last, cwd);
  const what = serviceAccount ? 'the service-account key' : `the ${rotation.cas.join(', ')} CA${rotation.cas.length === 1 ? '' : 's'}`;
  return { what: `a rotation of ${what} is under way (pki/rotation/state.json): its next phase is ${rotation.phase}`, next };
}
