// pod-network: the last step of `kcluster etcd snapshot restore`. The restored Node objects
// may carry other pod CIDRs than the nodes were running with (a Node registered again after
// the snapshot, a fresh cluster whose nodes registered in another order): every node's CNI
// config, bridge and pods follow its restored CIDR (roles/pod-network).
import type { Playbook } from '../src/orchestrator/engine/types.js';
import type { Inventory } from '../src/orchestrator/inventory/model.js';
import { podNetworkRole } from '../roles/pod-network/index.js';

export function podNetworkPlaybook(inventory: Inventory): Playbook {
  return {
    name: 'pod-network',
    description: "each node's CNI config, bridge and pods in the pod CIDR of its Node",
    plays: [{ name: 'pod network', hosts: 'all', roles: [podNetworkRole({ inventory })] }],
  };
}
