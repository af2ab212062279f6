// A large file (an etcd snapshot: gigabytes) sealed and opened as a stream, chunk by chunk, in
// the format of envelope.ts: memory stays at one chunk. An opened file is written beside its
// destination and renamed only once its last chunk verified: a damaged or cut object never
// leaves a partial file where a good one is expected.
import { createHash } from 'node:crypto';
import { open as openHandle, rename, rm } from 'node:fs/promises';
import {
  checkedHeader,
  chunkOpener,
  chunkOpenerWithKey,
  chunkSealer,
  DEFAULT_CHUNK_BYTES,
  EnvelopeError,
  headerBytes,
  PREFIX_BYTES,
  TAG_BYTES,
  type ChunkOpener,
} from './envelope.js';
import { checkedRecipientHeader } from './recipient-envelope.js';
import type { StateKey } from './state-key.js';

/** Seals the file `from` into `to` as the state's `path`; the sealed file's sha256 and size. */
export async function sealFile(
  key: StateKey,
  path: string,
  from: string,
  to: string,
  chunkBytes = DEFAULT_CHUNK_BYTES,
): Promise<{ sha256: string; bytes: number }> {
  const input = await openHandle(from, 'r');
  const output = await openHandle(to, 'w', 0o600);
  const hash = createHash('sha256');
  let bytes = 0;
  const write = async (data: Buffer): Promise<void> => {
    hash.update(data);
    bytes += data.length;
    await output.write(data);
  };
  try {
    const size = (await input.stat()).size;
    const aad = headerBytes(key, path, chunkBytes);
    const sealer = chunkSealer(key, aad);
    await write(aad);
    await write(sealer.prefix);
    const count = Math.max(1, Math.ceil(size / chunkBytes));
    const buffer = Buffer.alloc(chunkBytes);
    for (let i = 0; i < count; i++) {
      const { bytesRead } = await input.read(buffer, 0, chunkBytes, i * chunkBytes);
      await write(sealer.seal(i, i === count - 1, buffer.subarray(0, bytesRead)));
    }
  } finally {
    await input.close();
    await output.close();
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** How an object's header is read: its authenticated bytes, chunk size, where chunks start, and the opener for its nonce prefix. */
type HeaderReader = (head: Buffer) => { aad: Buffer; chunk: number; bodyStart: number; openerFor(prefix: Buffer): ChunkOpener };

/** Opens the sealed file `from` (the state's `path`) into `to`, through `to`.tmp; `what` names it in messages. */
export function openFile(key: StateKey, path: string, from: string, to: string, what: string): Promise<{ bytes: number }> {
  return openStream(from, to, what, (head) => {
    const checked = checkedHeader(key, path, head, what);
    return { ...checked, openerFor: (prefix) => chunkOpener(key, checked.aad, prefix, what) };
  });
}

/** Opens `from`, an object a host sealed to `key` (recipient-envelope.ts) as the state's `path`, into `to` like openFile. */
export function openRecipientFile(key: StateKey, path: string, from: string, to: string, what: string): Promise<{ bytes: number }> {
  return openStream(from, to, what, (head) => {
    const checked = checkedRecipientHeader(key, path, head, what);
    return { ...checked, openerFor: (prefix) => chunkOpenerWithKey(checked.dataKeyFor(prefix), checked.aad, prefix, what) };
  });
}

async function openStream(from: string, to: string, what: string, readHeader: HeaderReader): Promise<{ bytes: number }> {
  const input = await openHandle(from, 'r');
  const partial = `${to}.tmp`;
  const output = await openHandle(partial, 'w', 0o600);
  let bytes = 0;
  try {
    const size = (await input.stat()).size;
    const head = Buffer.alloc(Math.min(size, 4096));
    await input.read(head, 0, head.length, 0);
    const { aad, chunk, bodyStart, openerFor } = readHeader(head);
    if (size < bodyStart + TAG_BYTES) throw new EnvelopeError('damaged', `${what} is cut short (${size} bytes): restore it from the store's history`);
    const prefix = Buffer.alloc(PREFIX_BYTES);
    await input.read(prefix, 0, PREFIX_BYTES, aad.length);
    const opener = openerFor(prefix);
    const sealedChunk = chunk + TAG_BYTES;
    const count = Math.max(1, Math.ceil((size - bodyStart) / sealedChunk));
    const buffer = Buffer.alloc(sealedChunk);
    for (let i = 0; i < count; i++) {
      const { bytesRead } = await input.read(buffer, 0, sealedChunk, bodyStart + i * sealedChunk);
      const plain = opener.open(i, i === count - 1, buffer.subarray(0, bytesRead));
      bytes += plain.length;
      await output.write(plain);
    }
  } catch (error) {
    await output.close();
    await rm(partial, { force: true });
    throw error;
  } finally {
    await input.close();
  }
  await output.close();
  await rename(partial, to);
  return { bytes };
}
