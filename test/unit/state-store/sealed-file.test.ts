// Large files sealed and opened as streams, in the same format as objects sealed in memory:
// each opens the other's; a cut or changed file is refused and leaves nothing where the
// opened file would go.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvelopeError, open, seal } from '../../../src/orchestrator/state-store/envelope.js';
import { openFile, sealFile } from '../../../src/orchestrator/state-store/sealed-file.js';
import { stateKeyFromBytes } from '../../../src/orchestrator/state-store/state-key.js';

const key = stateKeyFromBytes(Buffer.alloc(32, 3), 'the key file /k');
const dir = mkdtempSync(join(tmpdir(), 'kc-sealed-file-'));
const CHUNK = 64 * 1024;

describe('sealFile and openFile', () => {
  it.each([0, 1, CHUNK, 3 * CHUNK + 17])('round-trip %i bytes through files, and interoperate with seal/open in memory', async (size) => {
    const plain = randomBytes(size);
    const from = join(dir, `plain-${size}`);
    writeFileSync(from, plain);
    const sealed = join(dir, `sealed-${size}`);
    const made = await sealFile(key, 'snapshots/etcd.db', from, sealed, CHUNK);
    expect(made).toEqual({ sha256: createHash('sha256').update(readFileSync(sealed)).digest('hex'), bytes: statSync(sealed).size });
    const back = join(dir, `back-${size}`);
    expect(await openFile(key, 'snapshots/etcd.db', sealed, back, 'object S')).toEqual({ bytes: size });
    expect(readFileSync(back).equals(plain)).toBe(true);
    // The same format as in memory, both ways.
    expect(open(key, 'snapshots/etcd.db', readFileSync(sealed), 'object S').equals(plain)).toBe(true);
    const inMemory = join(dir, `memory-${size}`);
    writeFileSync(inMemory, seal(key, 'snapshots/etcd.db', plain, CHUNK));
    await openFile(key, 'snapshots/etcd.db', inMemory, back, 'object M');
    expect(readFileSync(back).equals(plain)).toBe(true);
  });

  it('refuses a cut or changed file and leaves nothing where the opened file would go', async () => {
    const from = join(dir, 'plain-bad');
    writeFileSync(from, randomBytes(3 * CHUNK));
    const sealed = join(dir, 'sealed-bad');
    await sealFile(key, 'snapshots/etcd.db', from, sealed, CHUNK);
    const bytes = readFileSync(sealed);
    const cut = join(dir, 'cut');
    writeFileSync(cut, bytes.subarray(0, bytes.length - (CHUNK + 16)));
    const changed = join(dir, 'changed');
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 100]! ^= 1;
    writeFileSync(changed, flipped);
    for (const bad of [cut, changed]) {
      const to = join(dir, 'never');
      const error = await openFile(key, 'snapshots/etcd.db', bad, to, 'object B').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EnvelopeError);
      expect((error as EnvelopeError).problem).toBe('damaged');
      expect(existsSync(to)).toBe(false);
      expect(existsSync(`${to}.tmp`)).toBe(false);
    }
    await expect(openFile(key, 'snapshots/other.db', sealed, join(dir, 'x'), 'object B')).rejects.toThrow(
      "holds the state's snapshots/etcd.db, not snapshots/other.db",
    );
  });
});
