// Dual-stack inventories (issue 43): podCIDR and serviceCIDR take an IPv4 and an IPv6 range,
// every host its ipv6Address; each mistake is refused at its file:line:col with what to write.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { nodeAddresses, podCidrs, serviceCidrs } from '../../../src/kubernetes/cluster/dual-stack.js';

const home = mkdtempSync(join(tmpdir(), 'kc-home-'));
const env = { SSH_AUTH_SOCK: '/tmp/agent.sock' };
const parse = (text: string) => parseInventory(text, 'inv.yaml', { env, homeDir: home });
const errorsOf = (text: string): string[] => {
  const r = parse(text);
  return r.ok ? [] : r.errors.map(formatDiagnostic);
};
const warningsOf = (text: string): string[] => parse(text).warnings.map(formatDiagnostic);

const DUAL = '  podCIDR: 10.244.0.0/16,fd00:10:244::/56\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n';
const hosts = (first = '    ipv6Address: fd00:231:30::11\n', second = '    ipv6Address: fd00:231:30::12\n') =>
  `hosts:\n  - name: cp1\n    address: 10.231.30.11\n${first}    roles: [control-plane]\n  - name: w1\n    address: 10.231.30.12\n${second}`;

describe('dual-stack inventory', () => {
  it('resolves both families: IPv4 settings as before, the IPv6 ranges and each host in canonical form', () => {
    const r = parse(`cluster:\n${DUAL}${hosts('    ipv6Address: FD00:231:30:0::11\n')}`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const {
      cluster,
      hosts: [cp1, w1],
    } = r.inventory;
    expect(cluster.podCIDR).toBe('10.244.0.0/16');
    expect(cluster.serviceCIDR).toBe('10.96.0.0/12');
    expect(cluster.ipv6).toEqual({ podCIDR: 'fd00:10:244::/56', serviceCIDR: 'fd00:10:96::/112' });
    expect(podCidrs(cluster)).toBe('10.244.0.0/16,fd00:10:244::/56');
    expect(serviceCidrs(cluster)).toBe('10.96.0.0/12,fd00:10:96::/112');
    expect(nodeAddresses(cp1!, cluster)).toEqual(['10.231.30.11', 'fd00:231:30::11']);
    expect(nodeAddresses(w1!, cluster)).toEqual(['10.231.30.12', 'fd00:231:30::12']);
  });

  it('an IPv4-only cluster resolves as it always did: no ipv6, one address per node', () => {
    const r = parse(hosts('', ''));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.inventory.cluster.ipv6).toBeUndefined();
    expect(podCidrs(r.inventory.cluster)).toBe('10.244.0.0/16');
    expect(nodeAddresses(r.inventory.hosts[0]!, r.inventory.cluster)).toEqual(['10.231.30.11']);
  });

  const refused: [string, string, string[]][] = [
    [
      'IPv6 range first',
      `cluster:\n  podCIDR: fd00:10:244::/56,10.244.0.0/16\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n${hosts()}`,
      ['inv.yaml:2:12: cluster.podCIDR: list the IPv4 range first (such as 10.244.0.0/16,fd00:10:244::/56): kcluster makes IPv4-primary dual-stack clusters'],
    ],
    [
      'IPv6 only',
      `cluster:\n  serviceCIDR: fd00:10:96::/112\n${hosts()}`,
      [
        'inv.yaml:2:16: cluster.serviceCIDR: an IPv6-only cluster is not supported: give an IPv4 range first and the IPv6 one after it (such as 10.96.0.0/12,fd00:10:96::/112)',
      ],
    ],
    [
      'three ranges',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::/56,fd00:11:244::/56\n${hosts()}`,
      ['inv.yaml:2:12: cluster.podCIDR: takes at most two ranges, an IPv4 one and an IPv6 one (such as 10.244.0.0/16,fd00:10:244::/56); got 3'],
    ],
    [
      'a pod range too small for a /64 per node',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::/64\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n${hosts()}`,
      [
        'inv.yaml:2:12: cluster.podCIDR: the IPv6 range fd00:10:244::/64 must be /48 to /63: each node gets a /64 of it, and the controller-manager hands out at most 65536 of them',
      ],
    ],
    [
      'a Service range larger than the API server keeps',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::/56\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/64\n${hosts()}`,
      [
        'inv.yaml:3:16: cluster.serviceCIDR: the IPv6 range fd00:10:96::/64 must be /108 to /120: the API server keeps at most 2^20 addresses of a Service range',
      ],
    ],
    [
      'host bits in the IPv6 range',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::1/56\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n${hosts()}`,
      ['inv.yaml:2:12: cluster.podCIDR: the second range: host bits are set: did you mean fd00:10:244::/56? (got "fd00:10:244::1/56")'],
    ],
    [
      'only one setting dual',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::/56\n${hosts()}`,
      [
        'inv.yaml:2:3: cluster.serviceCIDR: podCIDR has an IPv6 range and serviceCIDR has none: a dual-stack cluster needs both (such as 10.96.0.0/12,fd00:10:96::/112), an IPv4-only one neither',
      ],
    ],
    [
      'overlapping IPv6 ranges',
      `cluster:\n  podCIDR: 10.244.0.0/16,fd00:10::/48\n  serviceCIDR: 10.96.0.0/12,fd00:10::/112\n${hosts()}`,
      ['inv.yaml:3:16: cluster.serviceCIDR: pod CIDR fd00:10::/48 and service CIDR fd00:10::/112 overlap: choose disjoint ranges'],
    ],
    [
      'a host without its IPv6 address',
      `cluster:\n${DUAL}${hosts('    ipv6Address: fd00:231:30::11\n', '')}`,
      [
        'inv.yaml:9:5: hosts[1]: w1 has no ipv6Address, and the cluster is dual-stack (podCIDR and serviceCIDR have an IPv6 range): give its IPv6 address on the interface that holds its address (ip -6 -o addr show scope global)',
      ],
    ],
    [
      'an IPv4 address as ipv6Address',
      `cluster:\n${DUAL}${hosts('    ipv6Address: "10:1"\n')}`,
      ['inv.yaml:7:18: hosts[0].ipv6Address: "10:1" is not an IPv6 address (such as fd00:231:30::11)'],
    ],
    [
      'the same IPv6 address twice, written two ways',
      `cluster:\n${DUAL}${hosts('    ipv6Address: fd00:231:30::11\n', '    ipv6Address: fd00:231:30:0:0:0:0:11\n')}`,
      ['inv.yaml:11:18: hosts[1].ipv6Address: duplicate IPv6 address fd00:231:30:0:0:0:0:11 (also hosts[0])'],
    ],
  ];
  it.each(refused)('refuses %s, at the line and column, with what to write', (_name, text, expected) => {
    expect(errorsOf(text)).toEqual(expected);
  });

  it('warns of an ipv6Address in an IPv4-only cluster (not used), and of one inside the pod range', () => {
    expect(warningsOf(hosts('    ipv6Address: fd00:231:30::11\n', ''))).toEqual([
      'inv.yaml:4:18: warning: hosts[0].ipv6Address: is not used: the cluster is IPv4 only. Add an IPv6 range to cluster.podCIDR and cluster.serviceCIDR for a dual-stack cluster, or remove it',
    ]);
    expect(warningsOf(`cluster:\n${DUAL}${hosts('    ipv6Address: fd00:10:244::11\n')}`)).toEqual([
      'inv.yaml:7:18: warning: hosts[0].ipv6Address: fd00:10:244::11 lies inside the pod CIDR fd00:10:244::/56: traffic to this host would be routed into the cluster',
    ]);
  });
});
