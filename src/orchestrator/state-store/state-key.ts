// The key that encrypts the state on the controller before it goes to a shared store (issue 41):
// 32 bytes from a file, an environment variable or a passphrase. The store never sees it; it
// sees its fingerprint, recorded beside every object, so a wrong key is refused by name before
// anything is decrypted, and never yields a second lineage of state.
import { createHmac, scryptSync } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

export const STATE_KEY_BYTES = 32;

export interface StateKey {
  readonly bytes: Buffer;
  /** "ks-" and 16 hex digits: names the key without revealing it. */
  readonly fingerprint: string;
  /** Where it came from, for messages: "the file /etc/kcluster/state.key", "KCLUSTER_STATE_KEY". */
  readonly source: string;
}

/** Raised for a key that cannot be read or is not a key: the message names its source and what to do. */
export class StateKeyError extends Error {
  override readonly name = 'StateKeyError';
}

export function fingerprintOf(bytes: Buffer): string {
  return `ks-${createHmac('sha256', bytes).update('kcluster state key v1').digest('hex').slice(0, 16)}`;
}

export function stateKeyFromBytes(bytes: Buffer, source: string): StateKey {
  if (bytes.length !== STATE_KEY_BYTES) throw new StateKeyError(`${source}: a state key is ${STATE_KEY_BYTES} bytes (raw, or base64), not ${bytes.length}`);
  return { bytes: Buffer.from(bytes), fingerprint: fingerprintOf(bytes), source };
}

/** Text that is a key in base64 (44 characters with padding), surrounding whitespace allowed. */
function fromBase64(text: string, source: string): StateKey {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]{43}=?$/.test(trimmed))
    throw new StateKeyError(
      `${source}: not a state key: give ${STATE_KEY_BYTES} random bytes in base64 (umask 077; head -c 32 /dev/urandom | base64 > FILE makes one)`,
    );
  return stateKeyFromBytes(Buffer.from(trimmed, 'base64'), source);
}

/** A key file: 32 raw bytes, or their base64. Refused when others than its owner may read it. */
export function stateKeyFromFile(path: string): StateKey {
  const source = `the key file ${path}`;
  let mode: number;
  let content: Buffer;
  try {
    mode = statSync(path).mode;
    content = readFileSync(path);
  } catch (error) {
    throw new StateKeyError(
      `${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}: give the file that holds the cluster's state key`,
    );
  }
  if ((mode & 0o077) !== 0)
    throw new StateKeyError(`${source}: its group or others may read it (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 ${path}`);
  return content.length === STATE_KEY_BYTES ? stateKeyFromBytes(content, source) : fromBase64(content.toString('utf8'), source);
}

/** A key in an environment variable, in base64. */
export function stateKeyFromEnv(name: string, env: Readonly<Record<string, string | undefined>>): StateKey {
  const value = env[name];
  if (value === undefined || value === '') throw new StateKeyError(`the environment variable ${name} is not set: set it to the cluster's state key (base64)`);
  return fromBase64(value, `the environment variable ${name}`);
}

/** scrypt's cost: about 128 MiB and a fraction of a second, once per command. */
export interface PassphraseParameters {
  readonly salt: string;
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

export const DEFAULT_PASSPHRASE_COST = { N: 2 ** 17, r: 8, p: 1 } as const;

/** A key derived from a passphrase with the store's recorded salt and cost. */
export function stateKeyFromPassphrase(passphrase: string, parameters: PassphraseParameters, source: string): StateKey {
  if (passphrase.length < 12) throw new StateKeyError(`${source}: a passphrase of at least 12 characters, please (it guards every CA key of the cluster)`);
  const bytes = scryptSync(passphrase.normalize('NFC'), Buffer.from(parameters.salt, 'base64'), STATE_KEY_BYTES, {
    N: parameters.N,
    r: parameters.r,
    p: parameters.p,
    maxmem: 256 * 1024 * 1024,
  });
  return stateKeyFromBytes(bytes, source);
}
