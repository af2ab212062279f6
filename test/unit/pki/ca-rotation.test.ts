// A CA rotation as the state folder goes through it (src/kubernetes/pki/ca-rotation.ts): the
// trust bundles and signing CAs ensureClusterPki gives in each phase, the leaves reissued once
// the new CA signs, a switch cut short completed, and the retired folder at the end.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClusterPki, type ClusterPki } from '../../../src/kubernetes/pki/cluster-pki.js';
import { readCaRotation, retireCaRotation, rotationDir, writeCaRotation, type CaRotation } from '../../../src/kubernetes/pki/ca-rotation.js';
import { startCaRotation } from '../../../src/kubernetes/pki/ca-rotation-start.js';
import { SHARED_PKI_SPEC } from '../../support/shared-pki.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-rotate-'));
const pemCount = (bundle: string): number => bundle.match(/-----BEGIN CERTIFICATE-----/g)?.length ?? 0;
const firstOf = (bundle: string): X509Certificate => new X509Certificate(bundle);
const fingerprints = (bundle: string): string[] =>
  [...bundle.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]).fingerprint256);
let before: ClusterPki;
let rotation: CaRotation;

beforeAll(async () => {
  before = await ensureClusterPki(dir, SHARED_PKI_SPEC);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CA rotation in the state folder', () => {
  it('outside a rotation, each trust bundle is the CA file as it is (a converged cluster sees no change)', () => {
    expect(before.trust.ca).toBe(before.ca.cert);
    expect(before.trust.etcdCa).toBe(before.etcdCa.cert);
    expect(before.trust.frontProxyCa).toBe(before.frontProxyCa.cert);
  });

  it('trust-new: the old CA still signs, the cluster and front-proxy bundles hold old then new; etcd untouched', async () => {
    rotation = await startCaRotation(dir, ['ca', 'front-proxy-ca'], new Date('2026-11-27T06:00:00Z'));
    expect(await readCaRotation(dir)).toEqual(rotation);
    const pki = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(pki.changes).toEqual([]);
    expect(pki.ca.cert).toBe(before.ca.cert);
    expect(pemCount(pki.trust.ca)).toBe(2);
    expect(firstOf(pki.trust.ca).fingerprint256).toBe(new X509Certificate(before.ca.cert).fingerprint256);
    const next = readFileSync(join(rotationDir(dir), 'next', 'ca.crt'), 'utf8');
    expect(fingerprints(pki.trust.ca)[1]).toBe(new X509Certificate(next).fingerprint256);
    expect(new X509Certificate(next).subject).toBe('CN=kubernetes');
    expect(pemCount(pki.trust.frontProxyCa)).toBe(2);
    expect(pki.trust.etcdCa).toBe(before.etcdCa.cert);
    expect(pki.apiServer.cert).toBe(before.apiServer.cert);
  }, 60_000);

  it('restart-pods: the same bundles', async () => {
    await writeCaRotation(dir, { ...rotation, phase: 'restart-pods', trustPublishedAt: '2026-11-27T06:05:00Z' });
    const pki = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(pki.changes).toEqual([]);
    expect(pemCount(pki.trust.ca)).toBe(2);
  });

  it('reissue: the new CA signs, every leaf it signs is reissued, the bundles hold new then old; a switch cut short is completed', async () => {
    const next = readFileSync(join(rotationDir(dir), 'next', 'ca.crt'), 'utf8');
    // An interruption after the cluster CA's certificate moved but before its key did.
    renameSync(join(dir, 'pki', 'ca.crt'), join(rotationDir(dir), 'previous-ca.crt.tmp'));
    execFileSync('mkdir', ['-p', join(rotationDir(dir), 'previous')]);
    renameSync(join(rotationDir(dir), 'previous-ca.crt.tmp'), join(rotationDir(dir), 'previous', 'ca.crt'));
    renameSync(join(rotationDir(dir), 'next', 'ca.crt'), join(dir, 'pki', 'ca.crt'));
    await writeCaRotation(dir, { ...rotation, phase: 'reissue' });
    const pki = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(pki.ca.cert).toBe(next);
    expect(new X509Certificate(pki.ca.cert).checkPrivateKey(createPrivateKey(pki.ca.key))).toBe(true);
    expect(fingerprints(pki.trust.ca)).toEqual([new X509Certificate(next).fingerprint256, new X509Certificate(before.ca.cert).fingerprint256]);
    expect(new X509Certificate(pki.apiServer.cert).verify(new X509Certificate(next).publicKey)).toBe(true);
    expect(new X509Certificate(pki.frontProxyClient.cert).verify(new X509Certificate(pki.frontProxyCa.cert).publicKey)).toBe(true);
    expect(pki.changes).toContain('apiserver: it is not signed by the current CA');
    expect(pki.changes).toContain('front-proxy-client: it is not signed by the current CA');
    // The etcd CA does not rotate: its leaves stay.
    expect(pki.etcdServer.get('cp1')!.cert).toBe(before.etcdServer.get('cp1')!.cert);
    expect(pki.apiServerEtcdClient.cert).toBe(before.apiServerEtcdClient.cert);
    expect(existsSync(join(rotationDir(dir), 'next', 'ca.key'))).toBe(false);
    // Run again: nothing more to reissue.
    expect((await ensureClusterPki(dir, SHARED_PKI_SPEC)).changes).toEqual([]);
  }, 60_000);

  it('drop-old: the new CA alone; retired, the rotation folder leaves the PKI folder', async () => {
    await writeCaRotation(dir, { ...rotation, phase: 'drop-old' });
    const pki = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(pki.changes).toEqual([]);
    expect(pki.trust.ca).toBe(pki.ca.cert);
    expect(pki.trust.frontProxyCa).toBe(pki.frontProxyCa.cert);
    const retired = await retireCaRotation(dir, rotation);
    expect(retired).toBe(join(dir, 'retired-cas', '2026-11-27T06-00-00-000Z'));
    expect(existsSync(join(retired, 'previous', 'ca.crt'))).toBe(true);
    expect(existsSync(rotationDir(dir))).toBe(false);
    expect(await readCaRotation(dir)).toBeUndefined();
    const after = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(after.changes).toEqual([]);
    expect(after.trust.ca).toBe(pki.ca.cert);
  });

  it('refuses a state file it did not write, naming it', async () => {
    const other = mkdtempSync(join(tmpdir(), 'kc-rotate-bad-'));
    await writeCaRotation(other, { cas: ['ca'], phase: 'nonsense' as 'reissue', startedAt: 'x' });
    await expect(readCaRotation(other)).rejects.toThrow(/state\.json: not a CA rotation kcluster wrote/);
    rmSync(other, { recursive: true, force: true });
  });
});

describe('service-account key rotation in the state folder', () => {
  const keys = (bundle: string): number => bundle.match(/-----BEGIN PUBLIC KEY-----/g)?.length ?? 0;
  it('verifies with both public keys, then signs with the new key, then verifies with it alone; no certificate changes', async () => {
    const own = mkdtempSync(join(tmpdir(), 'kc-rotate-sa-'));
    try {
      const first = await ensureClusterPki(own, SHARED_PKI_SPEC);
      expect(keys(first.serviceAccount.publicKey)).toBe(1);
      const sa = await startCaRotation(own, ['sa'], new Date('2026-11-27T07:00:00Z'));
      const trusting = await ensureClusterPki(own, SHARED_PKI_SPEC);
      expect(trusting.serviceAccount.privateKey).toBe(first.serviceAccount.privateKey);
      expect(keys(trusting.serviceAccount.publicKey)).toBe(2);
      expect(trusting.serviceAccount.publicKey.startsWith(first.serviceAccount.publicKey)).toBe(true);
      expect(trusting.trust.ca).toBe(first.ca.cert);
      await writeCaRotation(own, { ...sa, phase: 'reissue' });
      const signing = await ensureClusterPki(own, SHARED_PKI_SPEC);
      expect(signing.serviceAccount.privateKey).not.toBe(first.serviceAccount.privateKey);
      expect(keys(signing.serviceAccount.publicKey)).toBe(2);
      expect(signing.serviceAccount.publicKey.endsWith(first.serviceAccount.publicKey)).toBe(true);
      expect(signing.changes).toEqual([]);
      await writeCaRotation(own, { ...sa, phase: 'drop-old' });
      const done = await ensureClusterPki(own, SHARED_PKI_SPEC);
      expect(keys(done.serviceAccount.publicKey)).toBe(1);
      expect(done.serviceAccount.publicKey).not.toBe(first.serviceAccount.publicKey);
      expect(done.apiServer.cert).toBe(first.apiServer.cert);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});
