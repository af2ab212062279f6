// The one remote command of `kcluster certs check`, run here with sh on a stand-in host tree
// (every file kind it reads: *.crt at any depth, kubelet certificates, kubeconfigs with
// embedded and referenced client certificates), and its parser, including what it must
// refuse or report.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRemoteCertificates, remoteCertificatesScript, type CertificateDirs } from '../../../src/kubernetes/pki/remote-certificates.js';
import { renderKubeconfig } from '../../../src/kubernetes/pki/cluster-pki.js';
import { testCa, testLeaf, type TestPair } from './support/test-certificates.js';

const root = mkdtempSync(join(tmpdir(), 'kc-certs-'));
const dirs: CertificateDirs = {
  pki: join(root, 'etc/kubernetes/pki'),
  kubeletPki: join(root, 'var/lib/kubelet/pki'),
  etcdPki: join(root, 'etc/kubernetes/etcd'),
  kubeconfigs: join(root, 'etc/kubernetes'),
};
let ca: TestPair;
let etcdServer: TestPair;
let admin: TestPair;
let kubeletClient: TestPair;
let output: string;
const now = Date.now();

beforeAll(async () => {
  ca = await testCa();
  [etcdServer, admin, kubeletClient] = await Promise.all([
    testLeaf(ca, 'cp1', 365, 'server-and-client'),
    testLeaf(ca, 'kubernetes-admin', 200),
    testLeaf(ca, 'system:node:cp1', 100),
  ]);
  for (const dir of [join(dirs.pki, 'etcd'), dirs.kubeletPki, dirs.etcdPki]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(dirs.pki, 'ca.crt'), ca.cert);
  writeFileSync(join(dirs.pki, 'ca.key'), ca.key);
  writeFileSync(join(dirs.pki, 'etcd', 'server.crt'), etcdServer.cert);
  writeFileSync(join(dirs.etcdPki, 'peer.crt'), etcdServer.cert);
  writeFileSync(join(dirs.etcdPki, 'peer.key'), etcdServer.key);
  writeFileSync(join(dirs.kubeletPki, 'kubelet.crt'), etcdServer.key + etcdServer.cert);
  // As the kubelet keeps a client certificate it rotated: a dated file and a link to it.
  writeFileSync(join(dirs.kubeletPki, 'kubelet-client-2026-11-24-10-00-00.pem'), kubeletClient.cert + kubeletClient.key);
  symlinkSync('kubelet-client-2026-11-24-10-00-00.pem', join(dirs.kubeletPki, 'kubelet-client-current.pem'));
  writeFileSync(
    join(dirs.kubeconfigs, 'admin.conf'),
    renderKubeconfig({ clusterName: 'lab', server: 'https://10.0.0.11:6443', caCert: ca.cert, user: 'kubernetes-admin', cert: admin.cert, key: admin.key }),
  );
  writeFileSync(
    join(dirs.kubeconfigs, 'kubelet.conf'),
    `apiVersion: v1\nkind: Config\nusers:\n  - name: default-auth\n    user:\n      client-certificate: "${join(dirs.kubeletPki, 'kubelet-client-current.pem')}"\n      client-key: ${join(dirs.kubeletPki, 'kubelet-client-current.pem')}\n`,
  );
  writeFileSync(join(dirs.kubeconfigs, 'relative.conf'), "users:\n- name: x\n  user:\n    client-certificate: 'pki/ca.crt'\n");
  writeFileSync(join(dirs.kubeconfigs, 'token.conf'), 'apiVersion: v1\nkind: Config\nusers:\n  - name: t\n    user:\n      token: abc\n');
  output = execFileSync('sh', ['-c', remoteCertificatesScript(dirs).text], { encoding: 'utf8' });
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the remote certificate listing', () => {
  it('brings back certificates and certificate data only, never a key', () => {
    expect(output).not.toMatch(/PRIVATE KEY/);
    expect(output).not.toMatch(/client-key/);
    expect(output.trimEnd().endsWith('==> end')).toBe(true);
  });

  it('finds every certificate, including a kubeconfig with an embedded one and one it names', () => {
    // An hour after signing: 199 whole days left of the admin's 200.
    const { rows, problems } = parseRemoteCertificates('cp1', output, Date.now() + 3_600_000);
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.path.replaceAll(root, ''), r.subjectCn, r.issuerCn, r.ca])).toEqual([
      ['/etc/kubernetes/etcd/peer.crt', 'cp1', 'kubernetes', false],
      ['/etc/kubernetes/pki/ca.crt', 'kubernetes', 'kubernetes', true],
      ['/etc/kubernetes/pki/etcd/server.crt', 'cp1', 'kubernetes', false],
      ['/var/lib/kubelet/pki/kubelet-client-current.pem', 'system:node:cp1', 'kubernetes', false],
      ['/var/lib/kubelet/pki/kubelet.crt', 'cp1', 'kubernetes', false],
      ['/etc/kubernetes/admin.conf', 'kubernetes-admin', 'kubernetes', false],
      ['/etc/kubernetes/kubelet.conf -> /var/lib/kubelet/pki/kubelet-client-current.pem', 'system:node:cp1', 'kubernetes', false],
      ['/etc/kubernetes/relative.conf -> /etc/kubernetes/pki/ca.crt', 'kubernetes', 'kubernetes', true],
    ]);
    expect(rows.every((r) => r.location === 'cp1')).toBe(true);
    expect(rows.find((r) => r.subjectCn === 'kubernetes-admin')?.daysLeft).toBe(199);
  });
});

describe('parsing the listing', () => {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');

  it('reads each client-certificate-data of a kubeconfig, numbered when there are several', () => {
    const text = `==> kubeconfig /etc/kubernetes/multi.conf\n${b64(admin.cert)}\n    ${b64(kubeletClient.cert)}\n==> kubeconfig /etc/kubernetes/none.conf\n==> end\n`;
    const { rows, problems } = parseRemoteCertificates('w1', text, now);
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.path, r.subjectCn])).toEqual([
      ['/etc/kubernetes/multi.conf#1', 'kubernetes-admin'],
      ['/etc/kubernetes/multi.conf#2', 'system:node:cp1'],
    ]);
  });

  it('reports unreadable files, bad data and a listing cut short, keeping what it got', () => {
    const text = `==> file /etc/kubernetes/pki/ca.crt\n${ca.cert}==> file /etc/kubernetes/pki/gone.crt\n!! cannot read\n==> ref /etc/kubernetes/kubelet.conf\t/nowhere.pem\n!! cannot read\n==> kubeconfig /etc/kubernetes/x.conf\nnot base64!\n`;
    const { rows, problems } = parseRemoteCertificates('w1', text, now);
    expect(rows.map((r) => r.path)).toEqual(['/etc/kubernetes/pki/ca.crt']);
    expect(problems).toEqual([
      { location: 'w1', path: '/etc/kubernetes/pki/gone.crt', problem: 'cannot read it' },
      {
        location: 'w1',
        path: '/etc/kubernetes/kubelet.conf -> /nowhere.pem',
        problem: 'cannot read /nowhere.pem (client-certificate of /etc/kubernetes/kubelet.conf)',
      },
      { location: 'w1', path: '/etc/kubernetes/x.conf', problem: 'client-certificate-data is not base64' },
      { location: 'w1', path: '-', problem: expect.stringMatching(/ended early/) },
    ]);
  });

  it('refuses output it does not understand', () => {
    expect(() => parseRemoteCertificates('w1', 'sudo: a password is required\n==> end\n', now)).toThrow(
      /unexpected output before the first certificate: "sudo: a password is required"/,
    );
    expect(() => parseRemoteCertificates('w1', '==> socket /x\n==> end\n', now)).toThrow(/unexpected section "socket \/x"/);
  });
});
