// Forced renewal (`kcluster certs renew`): ensureClusterPki with renewLeaves replaces every
// leaf certificate and key, keeps the three CAs and the service-account key pair byte for
// byte, and a later call without the option changes nothing. Starts from a copy of the shared
// test PKI (test/support/shared-pki.ts).
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClusterPki, leafRequests, type PkiSpec } from '../../../src/kubernetes/pki/cluster-pki.js';
import { SHARED_PKI_SPEC, sharedPkiStateDir } from '../../support/shared-pki.js';

const spec: PkiSpec = SHARED_PKI_SPEC;
let dir: string;
let pkiDir: string;
const KEPT = ['ca.crt', 'ca.key', 'etcd/ca.crt', 'etcd/ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.key', 'sa.pub'];

/** Every file under the PKI folder, by path relative to it. */
function snapshot(): Map<string, string> {
  const files = readdirSync(pkiDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(
    files.map((e) => {
      const full = join(e.parentPath ?? e.path, e.name);
      return [full.slice(pkiDir.length + 1), readFileSync(full, 'utf8')];
    }),
  );
}

let before: Map<string, string>;
let afterRenewal: Map<string, string>;
let renewalChanges: readonly string[];

beforeAll(async () => {
  dir = await sharedPkiStateDir(spec);
  pkiDir = join(dir, 'pki');
  expect((await ensureClusterPki(dir, spec)).changes).toEqual([]);
  before = snapshot();
  renewalChanges = (await ensureClusterPki(dir, spec, { renewLeaves: true })).changes;
  afterRenewal = snapshot();
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ensureClusterPki({ renewLeaves: true })', () => {
  const leafFiles = leafRequests(spec).flatMap((r) => [`${r.file}.crt`, `${r.file}.key`]);

  it('replaces every leaf certificate and key, and says so', () => {
    expect(leafFiles.length).toBeGreaterThan(20);
    for (const file of leafFiles) {
      expect(before.get(file), file).toBeDefined();
      expect(afterRenewal.get(file), file).not.toBe(before.get(file));
    }
    expect(renewalChanges).toHaveLength(leafFiles.length / 2);
    expect(renewalChanges).toContain('apiserver: renewed on request');
    expect(renewalChanges).toContain('kubelet/w1: renewed on request');
  });

  it('keeps the CAs and the service-account key pair byte for byte', () => {
    for (const file of KEPT) expect(afterRenewal.get(file), file).toBe(before.get(file));
    expect(renewalChanges.some((c) => /^(ca|etcd\/ca|front-proxy-ca|sa):/.test(c))).toBe(false);
  });

  it('signs the renewed leaves with the same CAs, for a full year', () => {
    const ca = new X509Certificate(afterRenewal.get('ca.crt')!);
    const etcdCa = new X509Certificate(afterRenewal.get('etcd/ca.crt')!);
    const apiserver = new X509Certificate(afterRenewal.get('apiserver.crt')!);
    expect(apiserver.verify(ca.publicKey)).toBe(true);
    expect(new X509Certificate(afterRenewal.get('etcd/server-cp1.crt')!).verify(etcdCa.publicKey)).toBe(true);
    expect(Date.parse(apiserver.validTo) - Date.now()).toBeGreaterThan(364 * 86_400_000);
    expect(apiserver.serialNumber).not.toBe(new X509Certificate(before.get('apiserver.crt')!).serialNumber);
  });

  it('changes nothing on the next call without the option', { timeout: 60_000 }, async () => {
    const again = await ensureClusterPki(dir, spec);
    expect(again.changes).toEqual([]);
    expect(snapshot()).toEqual(afterRenewal);
  });
});
