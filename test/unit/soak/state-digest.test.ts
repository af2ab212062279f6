// The soak shows `--check` leaves the state folder as it was by comparing digests: a changed,
// an added and a removed file are each named; the logs are not part of it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digestDifference, stateFolderDigest } from '../../soak/state-digest.js';

describe('stateFolderDigest', () => {
  it('names every changed, added and removed file, and ignores the logs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-digest-'));
    mkdirSync(join(dir, 'pki', 'etcd'), { recursive: true });
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'a');
    writeFileSync(join(dir, 'pki', 'etcd', 'ca.crt'), 'b');
    writeFileSync(join(dir, 'journal.json'), '{}');
    const before = stateFolderDigest(dir);
    expect([...before.keys()].sort()).toEqual(['journal.json', 'pki/ca.crt', 'pki/etcd/ca.crt']);
    writeFileSync(join(dir, 'logs', 'run.log'), 'x');
    expect(digestDifference(before, stateFolderDigest(dir))).toEqual([]);
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'a2');
    rmSync(join(dir, 'journal.json'));
    writeFileSync(join(dir, 'pki', 'new.key'), 'k');
    expect(digestDifference(before, stateFolderDigest(dir))).toEqual(['added pki/new.key', 'changed pki/ca.crt', 'removed journal.json']);
    rmSync(dir, { recursive: true });
  });
});
