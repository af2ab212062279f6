// How one file of the state is sealed before it leaves the controller (issue 41): AES-256-GCM in
// chunks (so a large etcd snapshot streams through bounded memory later), a nonce per chunk made
// of a random prefix, the chunk's number and a flag on the last one, so a chunk dropped, moved or
// cut off fails to open. The header is authenticated with every chunk: it names the key (its
// fingerprint) and the file's path in the state, so an object opened with another key, or copied
// over another path, is refused by name before a byte of it is trusted. Each object has its own
// data key, derived from the state key and its nonce prefix (no nonce is ever used twice).
//   "KCE1" | header length (u16) | header JSON | nonce prefix (7) | chunk ... (ciphertext + tag 16)
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { StateKey } from './state-key.js';

const MAGIC = Buffer.from('KCE1');
const PREFIX_BYTES = 7;
const TAG_BYTES = 16;
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** The largest chunk a header may declare: what an opener allocates, so a damaged header is refused, not obeyed. */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

interface EnvelopeHeader {
  readonly v: 1;
  readonly alg: 'A256GCM-STREAM';
  /** The fingerprint of the state key that sealed it. */
  readonly kid: string;
  /** The file's path in the state ("pki/ca.key"). */
  readonly path: string;
  readonly chunk: number;
}

export type EnvelopeProblem = 'not-sealed' | 'other-key' | 'other-path' | 'damaged';

/** An object that cannot be opened: `problem` says why, the message names the object and what to do. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
  constructor(
    readonly problem: EnvelopeProblem,
    message: string,
  ) {
    super(message);
  }
}

const dataKey = (key: StateKey, prefix: Buffer): Buffer => Buffer.from(hkdfSync('sha256', key.bytes, prefix, 'kcluster-state object v1', 32));

function nonceOf(prefix: Buffer, index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  prefix.copy(nonce, 0);
  nonce.writeUInt32BE(index, PREFIX_BYTES);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** The authenticated header of an object sealed with `key` as the state's file `path`. */
export function headerBytes(key: StateKey, path: string, chunkBytes: number): Buffer {
  const header: EnvelopeHeader = { v: 1, alg: 'A256GCM-STREAM', kid: key.fingerprint, path, chunk: chunkBytes };
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(2);
  length.writeUInt16BE(json.length);
  return Buffer.concat([MAGIC, length, json]);
}

/** A sealer for one object: a fresh nonce prefix and data key; chunk i sealed in order, the last one flagged. */
export function chunkSealer(key: StateKey, aad: Buffer): { prefix: Buffer; seal(index: number, last: boolean, plain: Buffer): Buffer } {
  const prefix = randomBytes(PREFIX_BYTES);
  const k = dataKey(key, prefix);
  return {
    prefix,
    seal: (index, last, plain) => {
      const cipher = createCipheriv('aes-256-gcm', k, nonceOf(prefix, index, last));
      cipher.setAAD(aad);
      return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    },
  };
}

/** `plain` sealed with `key` as the state's file `path`. */
export function seal(key: StateKey, path: string, plain: Buffer, chunkBytes = DEFAULT_CHUNK_BYTES): Buffer {
  const aad = headerBytes(key, path, chunkBytes);
  const sealer = chunkSealer(key, aad);
  const parts = [aad, sealer.prefix];
  const count = Math.max(1, Math.ceil(plain.length / chunkBytes));
  for (let i = 0; i < count; i++) parts.push(sealer.seal(i, i === count - 1, plain.subarray(i * chunkBytes, (i + 1) * chunkBytes)));
  return Buffer.concat(parts);
}

/**
 * The JSON header framed after `magic` (magic | u16 length | JSON), unchecked, and the bytes it
 * spans (authenticated with every chunk); `notSealed` is the message when the magic is not there.
 */
export function framedHeader<T>(sealed: Buffer, magic: Buffer, notSealed: string, what: string): { header: Partial<T>; aad: Buffer } {
  if (sealed.length < magic.length + 2 || !sealed.subarray(0, magic.length).equals(magic)) throw new EnvelopeError('not-sealed', notSealed);
  const end = magic.length + 2 + sealed.readUInt16BE(magic.length);
  try {
    return { header: JSON.parse(sealed.subarray(magic.length + 2, end).toString('utf8')) as Partial<T>, aad: sealed.subarray(0, end) };
  } catch {
    throw new EnvelopeError('damaged', `${what}: its header is damaged`);
  }
}

function readHeader(sealed: Buffer, what: string): { header: EnvelopeHeader; aad: Buffer } {
  const { header, aad } = framedHeader<EnvelopeHeader>(
    sealed,
    MAGIC,
    `${what} is not an object kcluster sealed (no KCE1 header): it was written by something else, or is not state at all`,
    what,
  );
  if (
    header.v !== 1 ||
    header.alg !== 'A256GCM-STREAM' ||
    typeof header.kid !== 'string' ||
    typeof header.path !== 'string' ||
    !Number.isSafeInteger(header.chunk) ||
    header.chunk! < 1 ||
    header.chunk! > MAX_CHUNK_BYTES
  )
    throw new EnvelopeError('damaged', `${what}: its header is not one this kcluster reads (v ${String(header.v)}, ${String(header.alg)})`);
  return { header: header as EnvelopeHeader, aad };
}

/** The key fingerprint an object was sealed with, read from its header alone. */
export function sealedWith(sealed: Buffer, what: string): string {
  return readHeader(sealed, what).header.kid;
}

/**
 * The file sealed in `sealed`, which the store holds for `path` (`what` names the object in
 * messages). Refused before any decryption when another key sealed it or it holds another path;
 * refused as damaged when a chunk was changed, dropped, reordered or cut off.
 */
export function open(key: StateKey, path: string, sealed: Buffer, what: string): Buffer {
  const { aad, chunk, bodyStart: start } = checkedHeader(key, path, sealed, what);
  if (sealed.length < start + TAG_BYTES)
    throw new EnvelopeError('damaged', `${what} is cut short (${sealed.length} bytes): restore it from the store's history`);
  const opener = chunkOpener(key, aad, sealed.subarray(aad.length, start), what);
  const body = sealed.subarray(start);
  const sealedChunk = chunk + TAG_BYTES;
  const count = Math.max(1, Math.ceil(body.length / sealedChunk));
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) parts.push(opener.open(i, i === count - 1, body.subarray(i * sealedChunk, (i + 1) * sealedChunk)));
  return Buffer.concat(parts);
}

/** Opens the chunks of one object in order; a chunk that fails is refused as damaged, naming it. */
export function chunkOpener(key: StateKey, aad: Buffer, prefix: Buffer, what: string): ChunkOpener {
  return chunkOpenerWithKey(dataKey(key, prefix), aad, prefix, what);
}

export interface ChunkOpener {
  open(index: number, last: boolean, chunk: Buffer): Buffer;
}

/** The chunk opener for an object whose data key is known (an object sealed to a recipient: recipient-envelope.ts). */
export function chunkOpenerWithKey(k: Buffer, aad: Buffer, prefix: Buffer, what: string): ChunkOpener {
  return {
    open: (index, last, chunk) => {
      if (chunk.length < TAG_BYTES) throw new EnvelopeError('damaged', `${what}: chunk ${index + 1} is cut short: restore it from the store's history`);
      const decipher = createDecipheriv('aes-256-gcm', k, nonceOf(prefix, index, last));
      decipher.setAAD(aad);
      decipher.setAuthTag(chunk.subarray(chunk.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(chunk.subarray(0, chunk.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new EnvelopeError(
          'damaged',
          `${what} fails its authentication at chunk ${index + 1}${last ? ' (the last)' : ''}: it was changed, cut short or put together from other objects; restore it from the store's history`,
        );
      }
    },
  };
}

/** The header of a sealed object and where its chunks start, checked against the key and path (see open). */
export function checkedHeader(key: StateKey, path: string, head: Buffer, what: string): { aad: Buffer; chunk: number; bodyStart: number } {
  const { header, aad } = readHeader(head, what);
  if (header.kid !== key.fingerprint)
    throw new EnvelopeError(
      'other-key',
      `${what} was sealed with the state key ${header.kid}, and ${key.source} is ${key.fingerprint}: give the key this store was made with; nothing was read or changed`,
    );
  if (header.path !== path)
    throw new EnvelopeError(
      'other-path',
      `${what} holds the state's ${header.path}, not ${path}: it was copied over another object; restore it from the store's history`,
    );
  return { aad, chunk: header.chunk, bodyStart: aad.length + PREFIX_BYTES };
}

export { PREFIX_BYTES, TAG_BYTES };
