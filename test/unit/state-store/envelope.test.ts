// Sealing the state's files for a shared store: every size round-trips; a wrong key, another
// path, a flipped bit, a chunk dropped, swapped or cut off are each refused by name.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EnvelopeError, open, seal, sealedWith } from '../../../src/orchestrator/state-store/envelope.js';
import { stateKeyFromBytes } from '../../../src/orchestrator/state-store/state-key.js';

const key = stateKeyFromBytes(Buffer.alloc(32, 7), 'the key file /k');
const otherKey = stateKeyFromBytes(Buffer.alloc(32, 8), 'KCLUSTER_STATE_KEY');
const CHUNK = 64;

function refusal(run: () => unknown): EnvelopeError {
  try {
    run();
  } catch (error) {
    if (error instanceof EnvelopeError) return error;
    throw error;
  }
  throw new Error('it opened');
}

/** Where the chunks start in a sealed object (after magic, length, header, nonce prefix). */
const bodyStart = (sealed: Buffer): number => 4 + 2 + sealed.readUInt16BE(4) + 7;

describe('seal and open', () => {
  it.each([0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 5])('round-trips %i bytes, and seals the same bytes differently each time', (size) => {
    const plain = randomBytes(size);
    const once = seal(key, 'pki/ca.key', plain, CHUNK);
    const twice = seal(key, 'pki/ca.key', plain, CHUNK);
    expect(open(key, 'pki/ca.key', once, 'object A')).toEqual(plain);
    expect(once.equals(twice)).toBe(false);
    expect(once.includes(plain.length > 8 ? plain.subarray(0, 8) : Buffer.from('never'))).toBe(false);
    expect(sealedWith(once, 'object A')).toBe(key.fingerprint);
  });

  it('refuses another key before decrypting, naming both fingerprints and where the given key came from', () => {
    const sealed = seal(key, 'pki/ca.key', Buffer.from('secret'), CHUNK);
    const e = refusal(() => open(otherKey, 'pki/ca.key', sealed, 's3://b/p/blobs/ab'));
    expect(e.problem).toBe('other-key');
    expect(e.message).toBe(
      `s3://b/p/blobs/ab was sealed with the state key ${key.fingerprint}, and KCLUSTER_STATE_KEY is ${otherKey.fingerprint}: give the key this store was made with; nothing was read or changed`,
    );
  });

  it('refuses an object copied over another path', () => {
    const sealed = seal(key, 'pki/ca.key', Buffer.from('secret'), CHUNK);
    const e = refusal(() => open(key, 'encryption/keys.json', sealed, 'object B'));
    expect(e.problem).toBe('other-path');
    expect(e.message).toContain("object B holds the state's pki/ca.key, not encryption/keys.json");
  });

  it('refuses a flipped bit anywhere: header, nonce, ciphertext or tag', () => {
    const sealed = seal(key, 'pki/ca.key', randomBytes(2 * CHUNK + 3), CHUNK);
    for (const at of [8, bodyStart(sealed) - 1, bodyStart(sealed) + 3, sealed.length - 1]) {
      const bad = Buffer.from(sealed);
      bad[at]! ^= 0x01;
      const e = refusal(() => open(key, 'pki/ca.key', bad, 'object C'));
      expect(['damaged', 'other-key', 'other-path'], `byte ${at}`).toContain(e.problem);
    }
  });

  it('refuses a last chunk cut off, a chunk dropped, two chunks swapped, and a body cut mid-chunk', () => {
    const sealed = seal(key, 'pki/ca.key', randomBytes(3 * CHUNK), CHUNK);
    const start = bodyStart(sealed);
    const chunk = CHUNK + 16;
    const head = sealed.subarray(0, start);
    const chunks = [0, 1, 2].map((i) => sealed.subarray(start + i * chunk, start + (i + 1) * chunk));
    const cases: [string, Buffer][] = [
      ['last chunk cut off', Buffer.concat([head, chunks[0]!, chunks[1]!])],
      ['middle chunk dropped', Buffer.concat([head, chunks[0]!, chunks[2]!])],
      ['chunks swapped', Buffer.concat([head, chunks[1]!, chunks[0]!, chunks[2]!])],
      ['cut mid-chunk', sealed.subarray(0, sealed.length - 20)],
      ['nothing after the header', Buffer.from(head)],
    ];
    for (const [name, bad] of cases) expect(refusal(() => open(key, 'pki/ca.key', bad, 'object D')).problem, name).toBe('damaged');
  });

  it('refuses a header that declares a chunk larger than any opener allocates, before allocating it', () => {
    const json = Buffer.from(JSON.stringify({ v: 1, alg: 'A256GCM-STREAM', kid: key.fingerprint, path: 'pki/ca.key', chunk: 2 ** 40 }));
    const length = Buffer.alloc(2);
    length.writeUInt16BE(json.length);
    const e = refusal(() => open(key, 'pki/ca.key', Buffer.concat([Buffer.from('KCE1'), length, json, randomBytes(40)]), 'object F'));
    expect(e.problem).toBe('damaged');
    expect(e.message).toContain('object F: its header is not one this kcluster reads');
  });

  it('refuses what kcluster did not seal', () => {
    expect(refusal(() => open(key, 'pki/ca.key', Buffer.from('-----BEGIN PRIVATE KEY-----'), 'object E')).problem).toBe('not-sealed');
  });
});
