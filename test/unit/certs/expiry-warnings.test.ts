// Which state-folder certificates `kcluster apply` warns about after ensuring the PKI (near
// their end and not renewed by this run), with what to do; and the warning lines and advice
// of `kcluster certs check`.
import { describe, expect, it } from 'vitest';
import { CONTROLLER, type CertificateRow } from '../../../src/kubernetes/pki/certificate-inventory.js';
import { adviceFor, CA_ROTATION_HINT, changedStems, expiryLine, stateExpiryWarnings } from '../../../src/kubernetes/pki/expiry-warnings.js';

const PKI = '/home/me/.kcluster/lab/pki';
const row = (path: string, daysLeft: number, more: Partial<CertificateRow> = {}): CertificateRow => ({
  location: CONTROLLER,
  path,
  subjectCn: 'cn',
  issuerCn: 'kubernetes',
  notAfter: `2030-01-${String(10 + daysLeft).padStart(2, '0')}T00:00:00.000Z`,
  daysLeft,
  ca: false,
  serialNumber: '01',
  fingerprint256: 'AA',
  matchesState: '-',
  ...more,
});
const context = {
  pkiDir: PKI,
  inventoryFile: 'lab.yaml',
  withinDays: 30,
  renewed: new Set(['apiserver']),
  managedLeaves: new Set(['apiserver', 'admin', 'kubelet/w1', 'etcd/server-cp1']),
};

describe('apply: state-folder certificates to warn about', () => {
  it('selects CAs and leaves within the window that this run did not renew, soonest first', () => {
    const rows = [
      row(`${PKI}/ca.crt`, 12, { ca: true }),
      row(`${PKI}/etcd/ca.crt`, 3, { ca: true }),
      row(`${PKI}/front-proxy-ca.crt`, 30, { ca: true }), // outside the window
      row(`${PKI}/apiserver.crt`, 5), // renewed by this run (a stale row)
      row(`${PKI}/admin.crt`, 200),
      row(`${PKI}/kubelet/w9.crt`, 7), // a node no longer in the inventory
      row(`${PKI}/etcd/server-cp1.crt`, 29),
    ];
    const warnings = stateExpiryWarnings(rows, context);
    expect(warnings.map((w) => w.row.path.slice(PKI.length + 1))).toEqual(['etcd/ca.crt', 'kubelet/w9.crt', 'ca.crt', 'etcd/server-cp1.crt']);
    expect(warnings[0]!.advice).toContain(CA_ROTATION_HINT);
    expect(warnings[1]!.advice).toBe(`no host in lab.yaml uses it (a removed node?): delete ${PKI}/kubelet/w9.crt and its .key`);
    expect(warnings[3]!.advice).toBe('run kcluster certs renew -i lab.yaml');
  });

  it('includes an expired CA and says EXPIRED', () => {
    const [warning] = stateExpiryWarnings([row(`${PKI}/ca.crt`, -4, { ca: true, subjectCn: 'kubernetes' })], context);
    expect(warning).toBeDefined();
    expect(expiryLine(warning!.row, warning!.advice)).toBe(
      `EXPIRED: controller ${PKI}/ca.crt (CN kubernetes) expired on 2030-01-06 (4 days ago): ${warning!.advice}`,
    );
  });

  it('warns about nothing when every certificate has more than the window left', () => {
    expect(stateExpiryWarnings([row(`${PKI}/ca.crt`, 3000, { ca: true }), row(`${PKI}/admin.crt`, 364)], context)).toEqual([]);
  });

  it('reads the renewed file stems from the PKI changes', () => {
    expect([...changedStems(['apiserver: renewed on request', 'etcd/server-cp1: it expires on X: (renewed 30 days ahead)', 'sa: created'])]).toEqual([
      'apiserver',
      'etcd/server-cp1',
      'sa',
    ]);
  });
});

describe('certs check: warning lines and advice', () => {
  it('says when a certificate expires and what to do, by kind', () => {
    const leaf = row('/etc/kubernetes/pki/apiserver.crt', 9, { location: 'cp1', subjectCn: 'kube-apiserver', matchesState: 'yes' });
    expect(expiryLine(leaf, adviceFor(leaf, 'lab.yaml'))).toBe(
      'warning: cp1 /etc/kubernetes/pki/apiserver.crt (CN kube-apiserver) expires on 2030-01-19 (in 9 days): run kcluster certs renew -i lab.yaml (kcluster apply also renews leaves within 30 days of expiry)',
    );
    expect(adviceFor({ ...leaf, matchesState: 'no' }, 'lab.yaml')).toMatch(
      /^the state folder holds another certificate for it: run kcluster apply -i lab.yaml/,
    );
    expect(adviceFor({ ...leaf, ca: true }, 'lab.yaml')).toBe(CA_ROTATION_HINT);
    expect(adviceFor({ ...leaf, matchesState: '-' }, 'lab.yaml')).toMatch(/^the state folder has no copy of it/);
    expect(expiryLine({ ...leaf, daysLeft: 1 }, 'x')).toMatch(/ \(in 1 day\): x$/);
    expect(expiryLine({ ...leaf, daysLeft: -1 }, 'x')).toMatch(/^EXPIRED: .* \(1 day ago\): x$/);
  });

  it('tells a state-folder leaf no host uses apart from one renew renews', () => {
    const state = { pkiDir: PKI, managedLeaves: context.managedLeaves };
    expect(adviceFor(row(`${PKI}/kubelet/w9.crt`, 5), 'lab.yaml', state)).toBe(
      `no host in lab.yaml uses it (a removed node?): delete ${PKI}/kubelet/w9.crt and its .key`,
    );
    expect(adviceFor(row(`${PKI}/kubelet/w1.crt`, 5), 'lab.yaml', state)).toMatch(/^run kcluster certs renew -i lab.yaml/);
    // A host file is never taken for a state-folder leaf.
    expect(adviceFor(row('/etc/kubernetes/pki/apiserver.crt', 5, { location: 'cp1', matchesState: 'yes' }), 'lab.yaml', state)).toMatch(
      /^run kcluster certs renew/,
    );
  });
});
