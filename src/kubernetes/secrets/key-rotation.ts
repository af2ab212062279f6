// The steps of rotating the key that encrypts Secrets at rest, as key lists: each step is a
// state every API server may be in while no Secret becomes unreadable.
//   1. readable: the old key writes, the new one is known (every API server can read both);
//   2. writing:  the new key writes, the old one still reads;
//   (every Secret is rewritten, so that the new key encrypts all of them;)
//   3. done:     the new key alone.
// The state folder holds the old and the new key, marked `rotatingTo`, from before step 1 until
// step 3 is on every API server: a rotation cut short is resumed by running it again.
import { newEncryptionKey, type EncryptionKey, type EncryptionKeys } from './encryption-keys.js';

export interface RotationPlan {
  readonly from: EncryptionKey;
  readonly to: EncryptionKey;
  /** What the state folder holds while the rotation runs. */
  readonly during: EncryptionKeys;
  readonly readable: EncryptionKeys;
  readonly writing: EncryptionKeys;
  readonly done: EncryptionKeys;
}

/** A new rotation, or the one under way (`rotatingTo`), from the state folder's keys. */
export function rotationPlan(current: EncryptionKeys, now: Date): RotationPlan {
  let from: EncryptionKey;
  let to: EncryptionKey;
  if (current.rotatingTo !== undefined) {
    to = current.keys.find((k) => k.name === current.rotatingTo)!;
    const others = current.keys.filter((k) => k.name !== current.rotatingTo);
    if (others.length !== 1)
      throw new Error(
        `the state folder's encryption keys are in no state a rotation leaves (${current.keys.length} keys, rotating to ${current.rotatingTo}): restore keys.json from your backup`,
      );
    from = others[0]!;
  } else {
    if (current.keys.length !== 1)
      throw new Error(`the state folder holds ${current.keys.length} encryption keys and no rotation under way: restore keys.json from your backup`);
    from = current.keys[0]!;
    to = newEncryptionKey(now);
    if (to.name === from.name) throw new Error('the new key would have the same name as the current one (two rotations within one second): run it again');
  }
  return {
    from,
    to,
    during: { keys: [from, to], rotatingTo: to.name },
    readable: { keys: [from, to] },
    writing: { keys: [to, from] },
    done: { keys: [to] },
  };
}
