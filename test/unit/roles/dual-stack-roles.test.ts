// What the roles make of a dual-stack inventory (issue 43): flannel routes the IPv6 pod range
// too, kube-proxy's clusterCIDR holds both ranges, an IPv4-only cluster renders exactly what it
// did (nothing rolls on an upgrade of kcluster), the CNI config gets a range of each family, and
// preflight refuses an IPv6 address off the IPv4 interface and a Node registered IPv4 only.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { addonsRole } from '../../../roles/addons/index.js';
import { dualStackPodCidrs, podNetworkRole } from '../../../roles/pod-network/index.js';
import { dualStackProblem } from '../../../roles/preflight/dual-stack.js';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import { nodePodCidrs } from '../../../src/kubernetes/facts/node-pod-cidr.js';
import { parseIpv6AddressInterface } from '../../../src/orchestrator/facts/address-interface.js';
import type { AnyTask, HostContext } from '../../../src/orchestrator/engine/types.js';
import { addonFixture } from './support/addon-fixture.js';

const DUAL = '  podCIDR: 10.244.0.0/16,fd00:10:244::/56\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n';
const DUAL_HOSTS =
  'hosts:\n  - { name: cp1, address: 10.0.0.1, ipv6Address: "fd00::1", roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, ipv6Address: "fd00::2", roles: [worker] }\n';
const addon =
  (name: string) =>
  (inputs: ClusterInputs): AnyTask =>
    addonsRole(inputs).tasks.find((t) => t.name === `addon ${name}`)!;
const flannel = addonFixture('flannel', addon('flannel'));
const kubeProxy = addonFixture('kube-proxy', addon('kube-proxy'));
/** kube-proxy's task reads the host's vars: planned on the control plane. */
function kubeProxyManifest(cluster = '', hosts?: string): string {
  const inputs = kubeProxy.inputs(cluster, hosts);
  const ctx = { host: inputs.inventory.hosts[0], inventory: inputs.inventory, vars: {} } as unknown as HostContext;
  const change = addon('kube-proxy')(inputs).plan({ record: kubeProxy.record({}) } as never, ctx) as { payload: { manifest: string } };
  return change.payload.manifest;
}
const docs = (manifest: string) => parseAllDocuments(manifest).map((d) => d.toJS() as { kind: string; data?: Record<string, string> });
const configMapData = (manifest: string, key: string): string => docs(manifest).find((o) => o.kind === 'ConfigMap')!.data![key]!;

describe('dual-stack in the roles', () => {
  it("flannel's net-conf routes the IPv6 pod range as well; IPv4 only, the keys are absent", () => {
    expect(JSON.parse(configMapData(flannel.manifestOf(DUAL, DUAL_HOSTS), 'net-conf.json'))).toEqual({
      Network: '10.244.0.0/16',
      EnableIPv6: true,
      IPv6Network: 'fd00:10:244::/56',
      EnableNFTables: false,
      Backend: { Type: 'vxlan' },
    });
    expect(JSON.parse(configMapData(flannel.manifestOf(), 'net-conf.json'))).toEqual({
      Network: '10.244.0.0/16',
      EnableNFTables: false,
      Backend: { Type: 'vxlan' },
    });
  });

  it("kube-proxy's clusterCIDR holds both ranges; an IPv4 cluster's manifest (and so its config hash) has no trace of IPv6", () => {
    expect(configMapData(kubeProxyManifest(DUAL, DUAL_HOSTS), 'config.conf')).toContain('clusterCIDR: 10.244.0.0/16,fd00:10:244::/56\n');
    const ipv4 = kubeProxyManifest();
    expect(configMapData(ipv4, 'config.conf')).toContain('clusterCIDR: 10.244.0.0/16\n');
    expect(ipv4).not.toMatch(/ipv6|fd00/i);
  });

  it("the wait for the node's pod range makes the CNI config read both ranges again (read before the wait, they were not assigned yet)", () => {
    const { inventory } = kubeProxy.inputs(DUAL, DUAL_HOSTS);
    const role = podNetworkRole({ inventory });
    const wait = role.tasks.find((t) => t.name === 'pod CIDR assigned')!;
    const configFile = role.tasks.find((t) => t.name === 'file /etc/cni/net.d/10-flannel.conflist')!;
    const ctx = { host: inventory.hosts[1] } as unknown as HostContext;
    const readByConfig = Object.values(configFile.facts(ctx) as Record<string, { key: string }>).map((f) => f.key);
    expect(readByConfig).toContain('node-pod-cidrs:w1');
    expect(wait.invalidates).toContain('node-pod-cidrs:*');
  });

  it('a dual-stack node takes its two ranges IPv4 first; one registered IPv4 only is refused with what to do', () => {
    expect(dualStackPodCidrs(['10.244.1.0/24', 'fd00:10:244:1::/64'], 'w1')).toEqual(['10.244.1.0/24', 'fd00:10:244:1::/64']);
    expect(() => dualStackPodCidrs(['10.244.1.0/24'], 'w1')).toThrow(
      /^w1: the cluster is dual-stack but its Node has the pod ranges \[10\.244\.1\.0\/24\]: it registered while the cluster was IPv4 only.*install the cluster again$/,
    );
  });

  it("reads a Node's pod ranges from kubectl's jsonpath, and what kubectl said when it could not", () => {
    const fact = nodePodCidrs('w1');
    expect(String(fact.script)).toContain('jsonpath={.spec.podCIDRs[*]}');
    expect(fact.parse('cidrs 10.244.1.0/24 fd00:10:244:1::/64\n', 0)).toEqual({ assigned: true, cidrs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] });
    expect(fact.parse('cidrs \n', 0)).toEqual({ assigned: false, detail: 'no pod CIDR assigned yet' });
    expect(fact.parse('none\nError from server (NotFound): nodes "w1" not found\n', 0)).toEqual({
      assigned: false,
      detail: 'Error from server (NotFound): nodes "w1" not found',
    });
    expect(() => fact.parse('cidrs what\n', 0)).toThrow(/unexpected pod CIDRs/);
  });

  it('finds the interface of an IPv6 address as `ip -o -6 addr show to ADDRESS/128` prints it', () => {
    expect(parseIpv6AddressInterface('2: host0    inet6 fd00:231:30::11/64 scope global \\       valid_lft forever preferred_lft forever\n')).toEqual({
      dev: 'host0',
      prefixLength: 64,
    });
    expect(parseIpv6AddressInterface('')).toEqual({});
  });

  describe('preflight dual-stack', () => {
    const host = { name: 'w1', address: '10.0.0.2', ipv6Address: 'fd00::2' };
    const on = (dev: string) => ({ dev, prefixLength: 64 });
    const none = { assigned: false as const, detail: 'no kubectl' };
    it('passes with both addresses on one interface and no Node yet, or a dual-stack Node', () => {
      expect(dualStackProblem(host, { ipv4: on('eth0'), ipv6: on('eth0'), podCidrs: none })).toEqual({ ok: true, note: '10.0.0.2 and fd00::2 on eth0' });
      expect(
        dualStackProblem(host, { ipv4: on('eth0'), ipv6: on('eth0'), podCidrs: { assigned: true, cidrs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] } }).ok,
      ).toBe(true);
    });
    it('fails for an address the host lacks, one on another interface, and a Node registered IPv4 only', () => {
      const problem = (facts: Parameters<typeof dualStackProblem>[1]) => {
        const r = dualStackProblem(host, facts);
        return r.ok ? '' : r.problem;
      };
      expect(problem({ ipv4: on('eth0'), ipv6: {}, podCidrs: none })).toMatch(/^no interface of w1 has its ipv6Address fd00::2: give the host that address/);
      expect(problem({ ipv4: on('eth0'), ipv6: on('eth1'), podCidrs: none })).toMatch(
        /^fd00::2 is on eth1 and 10\.0\.0\.2 on eth0: flannel tunnels both families from one interface/,
      );
      expect(problem({ ipv4: on('eth0'), ipv6: on('eth0'), podCidrs: { assigned: true, cidrs: ['10.244.1.0/24'] } })).toMatch(
        /^the Node w1 has the pod range 10\.244\.1\.0\/24 only: .*An installed cluster cannot become dual-stack/,
      );
    });
  });
});
