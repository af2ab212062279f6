// One bound on transfers to hosts for the whole run (cluster.artifacts.uploadConcurrency), so
// 50 hosts do not each pull 500 MB from the controller at the same moment.
import { Semaphore } from '../engine/semaphore.js';

const KEY = 'artifacts:upload-slots';
const DEFAULT_SLOTS = 8;

/** Put the run's upload bound into the shared values before the run starts. */
export function withUploadSlots(shared: Map<string, unknown>, slots: number): Map<string, unknown> {
  shared.set(KEY, new Semaphore(slots));
  return shared;
}

export function uploadSlots(shared: ReadonlyMap<string, unknown>): Semaphore {
  const found = shared.get(KEY);
  if (found instanceof Semaphore) return found;
  // A run that did not set one (a test, a library user): bound it all the same.
  const mutable = shared as Map<string, unknown>;
  const created = new Semaphore(DEFAULT_SLOTS);
  if (typeof mutable.set === 'function') mutable.set(KEY, created);
  return created;
}
