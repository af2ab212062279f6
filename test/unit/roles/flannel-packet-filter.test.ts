// flannel's rules follow kube-proxy's mode (cluster.kubeProxy.mode): nftables writes them to
// flannel's own nftables tables (net-conf.json's EnableNFTables) and marks its pods so that a
// switch rolls the DaemonSet (flanneld reads net-conf.json only when it starts); iptables, the
// default, renders what clusters installed before had, so they do not roll. The cluster playbook
// removes what flannel's iptables mode left once it runs in nftables mode, and only then.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { addonsRole } from '../../../roles/addons/index.js';
import { parseFlannelIptables } from '../../../roles/pod-network/flannel-iptables-leftovers.js';
import { flannelLeftoverPlays } from '../../../playbooks/cluster.js';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import type { AnyTask } from '../../../src/orchestrator/engine/types.js';
import { addonFixture } from './support/addon-fixture.js';

const flannelTask = (inputs: ClusterInputs): AnyTask => addonsRole(inputs).tasks.find((t) => t.name === 'addon flannel')!;
const { inputs, manifestOf } = addonFixture('flannel', flannelTask);
const NFTABLES = '  kubeProxy: { mode: nftables }\n';

interface FlannelObject {
  kind: string;
  data?: Record<string, string>;
  spec?: { template: { metadata: { annotations?: Record<string, string> } } };
}

function flannel(cluster: string): { netConf: { EnableNFTables: boolean; Network: string }; annotations: Record<string, string> | undefined } {
  const objects = parseAllDocuments(manifestOf(cluster)).map((d) => d.toJS() as FlannelObject);
  const config = objects.find((o) => o.kind === 'ConfigMap')!;
  const daemonSet = objects.find((o) => o.kind === 'DaemonSet')!;
  return { netConf: JSON.parse(config.data!['net-conf.json']!) as never, annotations: daemonSet.spec!.template.metadata.annotations };
}

describe("flannel's packet filter", () => {
  it('iptables by default, with the pod template of clusters installed before nftables mode existed', () => {
    const { netConf, annotations } = flannel('');
    expect(netConf).toEqual({ Network: '10.244.0.0/16', EnableNFTables: false, Backend: { Type: 'vxlan' } });
    expect(annotations).toBeUndefined();
  });

  it("nftables with kube-proxy's nftables mode, its pods marked so that the switch rolls them", () => {
    const { netConf, annotations } = flannel(NFTABLES);
    expect(netConf.EnableNFTables).toBe(true);
    expect(annotations).toEqual({ 'kcluster.io/packet-filter': 'nftables' });
  });

  it("removes flannel's iptables leftovers on every node in nftables mode only", () => {
    const plays = (cluster: string) => flannelLeftoverPlays(inputs(cluster).inventory).map((p) => [p.name, p.hosts, p.roles.map((r) => r.name)]);
    expect(plays(NFTABLES)).toEqual([["flannel's iptables rules gone", 'all', ['pod-network-leftovers']]]);
    expect(plays('')).toEqual([]);
    expect(plays(`${NFTABLES}  cni: none\n`)).toEqual([]);
  });

  it('reads the lines of iptables-save naming flannel chains with their tool and table', () => {
    expect(
      parseFlannelIptables(
        'iptables nat :FLANNEL-POSTRTG - [0:0]\niptables nat -A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG\nip6tables filter -A FORWARD -m comment --comment "flanneld forward" -j FLANNEL-FWD\n\n',
      ),
    ).toEqual([
      { tool: 'iptables', table: 'nat', line: ':FLANNEL-POSTRTG - [0:0]' },
      { tool: 'iptables', table: 'nat', line: '-A POSTROUTING -m comment --comment "flanneld masq" -j FLANNEL-POSTRTG' },
      { tool: 'ip6tables', table: 'filter', line: '-A FORWARD -m comment --comment "flanneld forward" -j FLANNEL-FWD' },
    ]);
  });
});
