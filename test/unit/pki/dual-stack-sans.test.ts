// Dual-stack certificates: a node's IPv6 address goes into its kubelet's serving certificate and,
// on a control plane, the API server's; the reuse check reads OpenSSL's full upper-case IPv6 text
// as the same address, so a second run reissues nothing; the address gone, the certificates are
// reissued without it. Starts from a copy of the shared test PKI (test/support/shared-pki.ts).
import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureClusterPki, leafRequests, type PkiSpec } from '../../../src/kubernetes/pki/cluster-pki.js';
import { SHARED_PKI_SPEC, sharedPkiStateDir } from '../../support/shared-pki.js';

const withIpv6 = (name: string) => (name === 'cp1' ? { ipv6Address: 'fd00:231:30::11' } : name === 'w1' ? { ipv6Address: 'fd00:231:30::14' } : {});
const dualSpec: PkiSpec = {
  ...SHARED_PKI_SPEC,
  controlPlanes: SHARED_PKI_SPEC.controlPlanes.map((n) => ({ ...n, ...withIpv6(n.name) })),
  nodes: SHARED_PKI_SPEC.nodes.map((n) => ({ ...n, ...withIpv6(n.name) })),
  extraApiServerSans: ['FD00:0:0:0:0:0:0:99'],
};
let dir: string;
const sansOf = (file: string): string => new X509Certificate(readFileSync(join(dir, 'pki', file), 'utf8')).subjectAltName ?? '';

beforeAll(async () => {
  dir = await sharedPkiStateDir(SHARED_PKI_SPEC);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dual-stack certificates', () => {
  it('asks for the IPv6 addresses as IP SANs in canonical form, an IPv6 extra SAN too (not as a DNS name)', () => {
    const requests = new Map(leafRequests(dualSpec).map((r) => [r.file, r]));
    expect(requests.get('apiserver')!.ipAddresses).toEqual(expect.arrayContaining(['10.0.0.11', 'fd00:231:30::11', 'fd00::99']));
    expect(requests.get('apiserver')!.dnsNames).not.toContain('FD00:0:0:0:0:0:0:99');
    expect(requests.get('kubelet-serving/w1')!.ipAddresses).toEqual(['10.0.0.14', 'fd00:231:30::14']);
    expect(requests.get('kubelet-serving/w2')!.ipAddresses).toEqual(['10.0.0.15']);
    expect(requests.get('etcd/server-cp1')!.ipAddresses).toEqual(['10.0.0.11', '127.0.0.1']);
  });

  it('reissues exactly the certificates that gain an address, then nothing on the next run, then drops the addresses again', async () => {
    const gained = await ensureClusterPki(dir, dualSpec);
    expect(gained.changes.map((c) => c.split(':')[0]).sort()).toEqual(['apiserver', 'kubelet-serving/cp1', 'kubelet-serving/w1']);
    expect(sansOf('apiserver.crt')).toMatch(/IP Address:FD00:231:30:0:0:0:0:11/);
    expect(sansOf('kubelet-serving/w1.crt')).toMatch(/IP Address:FD00:231:30:0:0:0:0:14/);
    expect((await ensureClusterPki(dir, dualSpec)).changes).toEqual([]);
    const dropped = await ensureClusterPki(dir, SHARED_PKI_SPEC);
    expect(dropped.changes.map((c) => c.split(':')[0]).sort()).toEqual(['apiserver', 'kubelet-serving/cp1', 'kubelet-serving/w1']);
    expect(sansOf('apiserver.crt')).not.toMatch(/FD00/);
  }, 300_000);
});
