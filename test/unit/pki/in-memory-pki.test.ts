// A --check run's PKI and Secrets key (issue 40: `--check` leaves the state folder
// byte-identical): what is missing is made in memory and nothing is written; an existing PKI
// reads as it is; a CA rotation cut short at its switch reads as the switch would leave it (the
// new CA signing, the old one trusted beside it) while its files stay where they are.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureClusterPki } from '../../../src/kubernetes/pki/cluster-pki.js';
import { rotationDir, writeCaRotation } from '../../../src/kubernetes/pki/ca-rotation.js';
import { startCaRotation } from '../../../src/kubernetes/pki/ca-rotation-start.js';
import { EncryptionKeyStore } from '../../../src/kubernetes/secrets/encryption-keys.js';
import { SHARED_PKI_SPEC } from '../../support/shared-pki.js';
import { stateFolderDigest } from '../../soak/state-digest.js';

const dirs: string[] = [];
const newDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-pki-mem-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The folder's files and their hashes, as the soak's `--check` invariant compares them. */
const digest = (dir: string): Record<string, string> => Object.fromEntries(stateFolderDigest(dir));

const fingerprints = (bundle: string): string[] =>
  [...bundle.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]).fingerprint256);

describe('an in-memory PKI (a --check run)', () => {
  it('on an empty state folder makes every CA, key and leaf without writing a file, and says what it made', async () => {
    const dir = newDir();
    const pki = await ensureClusterPki(dir, SHARED_PKI_SPEC, { inMemory: true });
    expect(pki.changes).toContain('ca: created');
    expect(new X509Certificate(pki.apiServer.cert).verify(new X509Certificate(pki.ca.cert).publicKey)).toBe(true);
    const keys = await new EncryptionKeyStore(dir, { inMemory: true }).ensure();
    expect(keys.keys).toHaveLength(1);
    expect(digest(dir)).toEqual({});
  }, 60_000);

  it('reads an existing PKI as it is and changes nothing', async () => {
    const dir = newDir();
    const onDisk = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    const keys = await new EncryptionKeyStore(dir).ensure();
    const before = digest(dir);
    const inMemory = await ensureClusterPki(dir, SHARED_PKI_SPEC, { inMemory: true });
    expect(inMemory.changes).toEqual([]);
    expect(inMemory.ca.cert).toBe(onDisk.ca.cert);
    expect(inMemory.apiServer.cert).toBe(onDisk.apiServer.cert);
    expect(await new EncryptionKeyStore(dir, { inMemory: true }).ensure()).toEqual(keys);
    expect(digest(dir)).toEqual(before);
  }, 60_000);

  it('reads a rotation cut short before its switch as the switch leaves it, and leaves every file where it is', async () => {
    const dir = newDir();
    const old = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    const rotation = await startCaRotation(dir, ['ca'], new Date('2026-11-28T06:00:00Z'));
    await writeCaRotation(dir, { ...rotation, phase: 'reissue' });
    const next = readFileSync(join(rotationDir(dir), 'next', 'ca.crt'), 'utf8');
    const before = digest(dir);
    const planned = await ensureClusterPki(dir, SHARED_PKI_SPEC, { inMemory: true });
    expect(digest(dir)).toEqual(before);
    expect(planned.ca.cert).toBe(next);
    expect(fingerprints(planned.trust.ca)).toEqual([new X509Certificate(next).fingerprint256, new X509Certificate(old.ca.cert).fingerprint256]);
    expect(planned.changes).toContain('apiserver: it is not signed by the current CA');
    // The real run then does what the plan showed.
    const real = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(real.ca.cert).toBe(planned.ca.cert);
    expect(real.trust.ca).toBe(planned.trust.ca);
  }, 60_000);
});
