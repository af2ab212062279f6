// The pure side of `kcluster certs check`: rows from real certificates, the state folder's
// copy of each host file, the matches-state comparison, sorting by expiry, the warn selection
// and the table.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  certificateTable,
  compareWithState,
  CONTROLLER,
  describeCertificate,
  describeCertificates,
  expiringWithin,
  pemBlocks,
  sortByExpiry,
  stateCounterpart,
  type CertificateRow,
} from '../../../src/kubernetes/pki/certificate-inventory.js';
import { DAY_MS, testCa, testLeaf, type TestPair } from './support/test-certificates.js';

let ca: TestPair;
let admin: TestPair;
let apiserver: TestPair;
const now = Date.now();

beforeAll(async () => {
  ca = await testCa('kubernetes', 3650);
  admin = await testLeaf(ca, 'kubernetes-admin', 365);
  apiserver = await testLeaf(ca, 'kube-apiserver', 20, 'server');
}, 60_000);

/** A row with only what sorting and selection look at. */
const row = (location: string, path: string, daysLeft: number, more: Partial<CertificateRow> = {}): CertificateRow => ({
  location,
  path,
  subjectCn: 'x',
  issuerCn: 'kubernetes',
  notAfter: new Date(now + daysLeft * DAY_MS + 1000).toISOString(),
  daysLeft,
  ca: false,
  serialNumber: '01',
  fingerprint256: 'AA',
  matchesState: '-',
  ...more,
});

describe('describing certificates', () => {
  it('reads subject and issuer CN, CA flag, end date and whole days left', () => {
    // An hour after signing: 19 whole days are left of a 20-day certificate.
    const later = Date.now() + 3_600_000;
    const leaf = describeCertificate('cp1', '/etc/kubernetes/pki/apiserver.crt', apiserver.cert, later);
    expect(leaf).toMatchObject({
      location: 'cp1',
      path: '/etc/kubernetes/pki/apiserver.crt',
      subjectCn: 'kube-apiserver',
      issuerCn: 'kubernetes',
      ca: false,
      daysLeft: 19,
      matchesState: '-',
    });
    expect(Date.parse(leaf.notAfter) - now).toBeGreaterThan(19.9 * DAY_MS);
    expect(leaf.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const root = describeCertificate(CONTROLLER, 'ca.crt', ca.cert, later);
    expect(root).toMatchObject({ subjectCn: 'kubernetes', issuerCn: 'kubernetes', ca: true, daysLeft: 3649 });
    // Seen from 30 days later the 20-day certificate is 10 days past its end.
    expect(describeCertificate('cp1', 'a', apiserver.cert, later + 30 * DAY_MS).daysLeft).toBe(-11);
  });

  it('takes only CERTIFICATE blocks (never a key) and numbers several in one file', () => {
    const text = `${admin.key}${admin.cert}junk\n${ca.cert}`;
    expect(pemBlocks(text)).toEqual([admin.cert.trim() + '\n', ca.cert.trim() + '\n']);
    const { rows, problems } = describeCertificates('w1', '/var/lib/kubelet/pki/bundle.crt', text, now);
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.path, r.subjectCn])).toEqual([
      ['/var/lib/kubelet/pki/bundle.crt#1', 'kubernetes-admin'],
      ['/var/lib/kubelet/pki/bundle.crt#2', 'kubernetes'],
    ]);
  });

  it('reads a DER certificate and reports files without one, or with a broken one', () => {
    const der = Buffer.from(ca.cert.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(describeCertificates('cp1', 'x.crt', der, now).rows[0]?.subjectCn).toBe('kubernetes');
    expect(describeCertificates('cp1', 'empty.crt', '', now)).toEqual({
      rows: [],
      problems: [{ location: 'cp1', path: 'empty.crt', problem: 'no certificate in it' }],
    });
    const broken = describeCertificates('cp1', 'broken.crt', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', now);
    expect(broken.rows).toEqual([]);
    expect(broken.problems[0]).toMatchObject({
      location: 'cp1',
      path: 'broken.crt',
      problem: expect.stringMatching(/^does not parse as an X.509 certificate/),
    });
  });
});

describe('the state folder copy of a host file', () => {
  it('maps every file the roles install to its file under <stateDir>/pki', () => {
    expect(stateCounterpart('cp1', '/etc/kubernetes/pki/apiserver.crt')).toBe('apiserver.crt');
    expect(stateCounterpart('cp1', '/etc/kubernetes/pki/etcd/ca.crt')).toBe('etcd/ca.crt');
    expect(stateCounterpart('cp1', '/etc/kubernetes/pki/etcd/healthcheck-client.crt')).toBe('etcd/healthcheck-client.crt');
    expect(stateCounterpart('cp2', '/etc/kubernetes/pki/etcd/server.crt')).toBe('etcd/server-cp2.crt');
    expect(stateCounterpart('cp2', '/etc/kubernetes/pki/etcd/peer.crt')).toBe('etcd/peer-cp2.crt');
    expect(stateCounterpart('cp2', '/etc/kubernetes/etcd/server.crt')).toBe('etcd/server-cp2.crt');
    expect(stateCounterpart('cp2', '/etc/kubernetes/etcd/peer.crt')).toBe('etcd/peer-cp2.crt');
    expect(stateCounterpart('w1', '/var/lib/kubelet/pki/kubelet.crt')).toBe('kubelet-serving/w1.crt');
    expect(stateCounterpart('w1', '/etc/kubernetes/kubelet.conf')).toBe('kubelet/w1.crt');
    expect(stateCounterpart('cp1', '/etc/kubernetes/admin.conf')).toBe('admin.crt');
    expect(stateCounterpart('cp1', '/etc/kubernetes/controller-manager.conf')).toBe('controller-manager.crt');
    expect(stateCounterpart('cp1', '/etc/kubernetes/scheduler.conf')).toBe('scheduler.crt');
  });

  it('has none for files kcluster does not install', () => {
    for (const path of [
      '/etc/kubernetes/pki/extra.crt',
      '/etc/kubernetes/pki/etcd/other.crt',
      '/var/lib/kubelet/pki/kubelet-client.crt',
      '/etc/kubernetes/super-admin.conf',
      '/etc/kubernetes/admin.conf#2',
      '/etc/kubernetes/kubelet.conf -> /var/lib/kubelet/pki/kubelet-client-current.pem',
    ]) {
      expect(stateCounterpart('cp1', path), path).toBeUndefined();
    }
  });

  it('says yes for the same certificate, no for another one, - without a copy', () => {
    const rows = [
      row('cp1', '/etc/kubernetes/pki/apiserver.crt', 300, { fingerprint256: 'NEW' }),
      row('cp2', '/etc/kubernetes/pki/apiserver.crt', 20, { fingerprint256: 'OLD' }),
      row('cp2', '/etc/kubernetes/pki/etcd/server.crt', 300, { fingerprint256: 'S2' }),
      row('cp1', '/etc/kubernetes/pki/etcd/server.crt', 300, { fingerprint256: 'S2' }),
      row('w1', '/etc/kubernetes/kubelet.conf', 300, { fingerprint256: 'K1' }),
      row('w1', '/etc/kubernetes/pki/unknown.crt', 300),
      row(CONTROLLER, '/state/pki/apiserver.crt', 300, { fingerprint256: 'NEW' }),
    ];
    const state = new Map([
      ['apiserver.crt', 'NEW'],
      ['etcd/server-cp2.crt', 'S2'],
      ['etcd/server-cp1.crt', 'S1'],
    ]);
    expect(compareWithState(rows, state).map((r) => r.matchesState)).toEqual(['yes', 'no', 'yes', 'no', '-', '-', '-']);
  });
});

describe('order and selection', () => {
  it('sorts soonest expiry first, the controller before hosts on a tie', () => {
    const tie = new Date(now + 5 * DAY_MS).toISOString();
    const rows = [
      row('w1', 'b', 100),
      row('cp1', 'x', 5, { notAfter: tie }),
      row(CONTROLLER, 'y', 5, { notAfter: tie }),
      row('cp1', 'a', -3),
      row('cp1', 'w', 5, { notAfter: tie }),
    ];
    expect(sortByExpiry(rows).map((r) => `${r.location}:${r.path}`)).toEqual(['cp1:a', 'controller:y', 'cp1:w', 'cp1:x', 'w1:b']);
  });

  it('selects what expires within the given days, expired ones included', () => {
    const rows = [row('cp1', 'far', 30), row('cp1', 'soon', 29), row('cp1', 'gone', -1), row('cp1', 'today', 0)];
    expect(expiringWithin(rows, 30).map((r) => r.path)).toEqual(['gone', 'today', 'soon']);
    expect(expiringWithin(rows, 0).map((r) => r.path)).toEqual(['gone']);
  });

  it('prints a table with EXPIRED, CA and matches-state columns', () => {
    const table = certificateTable([
      row('cp1', '/etc/kubernetes/pki/ca.crt', -2, { ca: true, matchesState: 'no', subjectCn: 'kubernetes' }),
      row(CONTROLLER, '/s/pki/admin.crt', 364),
    ]);
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^host\s+path\s+subject CN\s+issuer CN\s+not after\s+days left\s+CA\s+matches state$/);
    expect(lines[1]).toMatch(/^cp1\s+\/etc\/kubernetes\/pki\/ca\.crt\s+kubernetes\s+kubernetes\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+EXPIRED\s+yes\s+no$/);
    expect(lines[2]).toMatch(/^controller\s+\/s\/pki\/admin\.crt\s+x\s+kubernetes\s+\S+\s+364\s+no\s+-$/);
  });
});
