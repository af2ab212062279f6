// Objects sealed to the state key by a host that does not hold it (issue 41: a control plane's
// scheduled etcd snapshots go into the store from the control plane itself). The host holds an
// X25519 public key derived from the state key; the sealer (src/kubernetes/snapshot-upload,
// seal.go) makes an ephemeral key pair per object and takes the data key from their shared
// secret; only a holder of the state key derives the private half and opens it. The chunks are
// the state envelope's (envelope.ts), so the same checks hold: a chunk changed, dropped, moved or
// cut off fails, and the header (key fingerprint, path) is authenticated with every chunk.
//   "KCP1" | header length (u16) | header JSON | nonce prefix (7) | chunk ... (ciphertext + tag 16)
import { createPrivateKey, createPublicKey, diffieHellman, hkdfSync, type KeyObject } from 'node:crypto';
import { EnvelopeError, framedHeader, MAX_CHUNK_BYTES, PREFIX_BYTES } from './envelope.js';
import type { StateKey } from './state-key.js';

const MAGIC = Buffer.from('KCP1');
const ALG = 'X25519-A256GCM-STREAM';
/** DER framing of a raw X25519 key (RFC 8410): PKCS#8 for the private half, SPKI for the public. */
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');

/** The suffix of an object sealed to the state key in the store. */
export const RECIPIENT_SUFFIX = '.kcp';

interface RecipientHeader {
  readonly v: 1;
  readonly alg: typeof ALG;
  readonly kid: string;
  /** The sealer's ephemeral public key, base64. */
  readonly epk: string;
  readonly path: string;
  readonly chunk: number;
}

function privateKeyOf(key: StateKey): KeyObject {
  const raw = Buffer.from(hkdfSync('sha256', key.bytes, Buffer.alloc(0), 'kcluster scheduled snapshots x25519 v1', 32));
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519, raw]), format: 'der', type: 'pkcs8' });
}

const rawPublic = (k: KeyObject): Buffer => createPublicKey(k).export({ format: 'der', type: 'spki' }).subarray(SPKI_X25519.length);

/** What a host gets to seal for the state key: the public key (base64, raw 32 bytes) and the key's fingerprint. */
export interface Recipient {
  readonly publicKey: string;
  readonly kid: string;
}

export function recipientOf(key: StateKey): Recipient {
  return { publicKey: rawPublic(privateKeyOf(key)).toString('base64'), kid: key.fingerprint };
}

function readHeader(head: Buffer, what: string): { header: RecipientHeader; aad: Buffer } {
  const { header, aad } = framedHeader<RecipientHeader>(
    head,
    MAGIC,
    `${what} is not an object a kcluster host sealed (no KCP1 header): it was written by something else`,
    what,
  );
  if (
    header.v !== 1 ||
    header.alg !== ALG ||
    typeof header.kid !== 'string' ||
    typeof header.epk !== 'string' ||
    typeof header.path !== 'string' ||
    !Number.isSafeInteger(header.chunk) ||
    header.chunk! < 1 ||
    header.chunk! > MAX_CHUNK_BYTES
  )
    throw new EnvelopeError('damaged', `${what}: its header is not one this kcluster reads (v ${String(header.v)}, ${String(header.alg)})`);
  return { header: header as RecipientHeader, aad };
}

/**
 * The header of an object sealed to `key` as the state's `path`, checked (key, path) before any
 * decryption, and the data key for its nonce prefix.
 */
export function checkedRecipientHeader(
  key: StateKey,
  path: string,
  head: Buffer,
  what: string,
): { aad: Buffer; chunk: number; bodyStart: number; dataKeyFor(prefix: Buffer): Buffer } {
  const { header, aad } = readHeader(head, what);
  if (header.kid !== key.fingerprint)
    throw new EnvelopeError(
      'other-key',
      `${what} was sealed for the state key ${header.kid}, and ${key.source} is ${key.fingerprint}: give the key this store was made with; nothing was read or changed`,
    );
  if (header.path !== path) throw new EnvelopeError('other-path', `${what} holds ${header.path}, not ${path}: it was copied over another object`);
  const ephemeral = Buffer.from(header.epk, 'base64');
  if (ephemeral.length !== 32) throw new EnvelopeError('damaged', `${what}: its header's ephemeral key is not an X25519 key`);
  const privateKey = privateKeyOf(key);
  const publicKey = createPublicKey({ key: Buffer.concat([SPKI_X25519, ephemeral]), format: 'der', type: 'spki' });
  const shared = diffieHellman({ privateKey, publicKey });
  const recipient = rawPublic(privateKey);
  return {
    aad,
    chunk: header.chunk,
    bodyStart: aad.length + PREFIX_BYTES,
    dataKeyFor: (prefix) => Buffer.from(hkdfSync('sha256', shared, Buffer.concat([prefix, ephemeral, recipient]), 'kcluster-recipient object v1', 32)),
  };
}
