// The cluster PKI: subjects, usages and SANs checked with Node's X509Certificate and with
// openssl; reuse byte for byte; targeted regeneration; file modes; kubeconfigs.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensureClusterPki, renderKubeconfig, certificateSubjectCn, type ClusterPki, type PkiSpec } from '../../../src/kubernetes/pki/cluster-pki.js';
import { SHARED_PKI_SPEC } from '../../support/shared-pki.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-pki-'));
// The shared test spec (3 control planes behind a load balancer, 2 workers), generated here from scratch.
const spec: PkiSpec = SHARED_PKI_SPEC;
let pki: ClusterPki;
const pkiDir = join(dir, 'pki');
const x509 = (pem: string): X509Certificate => new X509Certificate(pem);
const snapshot = (): Map<string, string> =>
  new Map(
    execFileSync('find', [pkiDir, '-type', 'f'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => [f, readFileSync(f, 'utf8')]),
  );

beforeAll(async () => {
  const started = Date.now();
  pki = await ensureClusterPki(dir, spec);
  console.log(`pki: fresh generation for 3 control planes + 2 workers: ${pki.changes.length} items in ${Date.now() - started} ms`);
}, 120_000); // RSA key generation: seconds alone, much longer on a loaded 2-core machine
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cluster PKI', () => {
  it('creates three CAs and signs every leaf with the right one (checked by Node and by openssl)', () => {
    const ca = x509(pki.ca.cert);
    expect(ca.ca).toBe(true);
    expect(x509(pki.apiServer.cert).checkIssued(ca)).toBe(true);
    expect(x509(pki.apiServer.cert).verify(ca.publicKey)).toBe(true);
    expect(x509(pki.etcdServer.get('cp2')!.cert).verify(x509(pki.etcdCa.cert).publicKey)).toBe(true);
    expect(x509(pki.etcdServer.get('cp2')!.cert).verify(ca.publicKey)).toBe(false);
    expect(x509(pki.frontProxyClient.cert).verify(x509(pki.frontProxyCa.cert).publicKey)).toBe(true);
    const verify = (caFile: string, ...certs: string[]): string =>
      execFileSync('openssl', ['verify', '-CAfile', join(pkiDir, caFile), ...certs.map((c) => join(pkiDir, c))], { encoding: 'utf8' });
    expect(verify('ca.crt', 'apiserver.crt', 'admin.crt', 'kubelet/w1.crt', 'kubelet-serving/w2.crt', 'controller-manager.crt')).toMatch(
      /apiserver.crt: OK[\s\S]*controller-manager.crt: OK/,
    );
    expect(verify('etcd/ca.crt', 'etcd/server-cp1.crt', 'etcd/peer-cp3.crt', 'apiserver-etcd-client.crt')).toMatch(/apiserver-etcd-client.crt: OK/);
  });

  it('gives the API server every name and address it is reached by', () => {
    const sans = x509(pki.apiServer.cert).subjectAltName ?? '';
    for (const name of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'cp1', 'cp2', 'cp3'])
      expect(sans).toContain(`DNS:${name}`);
    for (const ip of ['10.96.0.1', '10.0.0.100', '10.0.0.11', '10.0.0.13', '127.0.0.1']) expect(sans).toContain(`IP Address:${ip}`);
    const text = execFileSync('openssl', ['x509', '-in', join(pkiDir, 'apiserver.crt'), '-noout', '-text'], { encoding: 'utf8' });
    expect(text).toMatch(/Extended Key Usage: \n\s+TLS Web Server Authentication\n/);
  });

  it('names nodes and system components the way the authorizers expect', () => {
    expect(x509(pki.kubelet.get('w1')!.cert).subject).toBe('O=system:nodes\nCN=system:node:w1');
    expect(x509(pki.kubelet.get('w1')!.cert).keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.2']));
    expect(x509(pki.kubelet.get('w1')!.cert).keyUsage).not.toContain('1.3.6.1.5.5.7.3.1');
    expect(x509(pki.admin.cert).subject).toBe('O=system:masters\nCN=kubernetes-admin');
    expect(certificateSubjectCn(pki.controllerManager.cert)).toBe('system:kube-controller-manager');
    expect(certificateSubjectCn(pki.apiServerKubeletClient.cert)).toBe('kube-apiserver-kubelet-client');
    expect(x509(pki.etcdPeer.get('cp3')!.cert).keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    expect(x509(pki.kubeletServing.get('w2')!.cert).subjectAltName).toBe('DNS:w2, IP Address:10.0.0.15');
  });

  it('keeps keys 0600 in 0700 folders', () => {
    expect(statSync(pkiDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(pkiDir, 'etcd')).mode & 0o777).toBe(0o700);
    expect(statSync(join(pkiDir, 'ca.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(pkiDir, 'kubelet', 'w1.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(pkiDir, 'sa.key')).mode & 0o777).toBe(0o600);
  });

  it('reuses everything on the next run, byte for byte', async () => {
    const before = snapshot();
    const again = await ensureClusterPki(dir, spec);
    expect(again.changes).toEqual([]);
    expect(snapshot()).toEqual(before);
  });

  it('regenerates only what needs it: a new SAN, a deleted certificate, one signed by an unrelated CA', async () => {
    const before = snapshot();
    const withName = await ensureClusterPki(dir, { ...spec, extraApiServerSans: ['api.example.com'] });
    expect(withName.changes).toEqual(['apiserver: missing SAN api.example.com']);
    rmSync(join(pkiDir, 'kubelet', 'w2.crt'));
    const foreign = mkdtempSync(join(dir, 'foreign-'));
    await ensureClusterPki(foreign, spec);
    copyFileSync(join(foreign, 'pki', 'admin.crt'), join(pkiDir, 'admin.crt'));
    copyFileSync(join(foreign, 'pki', 'admin.key'), join(pkiDir, 'admin.key'));
    const repaired = await ensureClusterPki(dir, { ...spec, extraApiServerSans: ['api.example.com'] });
    expect(repaired.changes).toEqual(['admin: it is not signed by the current CA', 'kubelet/w2: created']);
    const after = snapshot();
    const changed = [...after.keys()]
      .filter((f) => after.get(f) !== before.get(f))
      .map((f) => f.slice(pkiDir.length + 1))
      .sort();
    expect(changed).toEqual(['admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key', 'kubelet/w2.crt', 'kubelet/w2.key']);
  });

  it('reissues a certificate that holds a name nobody asks for any more (an extra SAN removed)', async () => {
    const removed = await ensureClusterPki(dir, spec);
    expect(removed.changes).toEqual(['apiserver: SAN api.example.com no longer asked for']);
    expect(new X509Certificate(removed.apiServer.cert).subjectAltName).not.toContain('api.example.com');
    expect((await ensureClusterPki(dir, spec)).changes).toEqual([]);
  });

  it('never replaces a damaged CA by itself, and says what to do', async () => {
    const copy = mkdtempSync(join(dir, 'damaged-'));
    await ensureClusterPki(copy, spec);
    writeFileSync(join(copy, 'pki', 'ca.key'), 'garbage');
    await expect(ensureClusterPki(copy, spec)).rejects.toThrow(
      /ca.crt: the stored key does not parse: kcluster does not replace a CA by itself: kcluster certs rotate-ca replaces it/,
    );
    // A whole cluster PKI of RSA keys is generated first: seconds of CPU, more on a busy machine.
  }, 60_000);

  it('renders kubeconfigs with the CA and the client pair embedded', () => {
    const text = renderKubeconfig({
      clusterName: 'lab',
      server: 'https://10.0.0.100:6443',
      caCert: pki.ca.cert,
      user: 'kubernetes-admin',
      cert: pki.admin.cert,
      key: pki.admin.key,
    });
    const doc = parse(text) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[]; 'current-context': string };
    expect(doc.clusters[0]!.cluster['server']).toBe('https://10.0.0.100:6443');
    expect(Buffer.from(doc.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString()).toBe(pki.ca.cert);
    expect(Buffer.from(doc.users[0]!.user['client-key-data']!, 'base64').toString()).toBe(pki.admin.key);
    expect(doc['current-context']).toBe('kubernetes-admin@lab');
  });
});
