// What the cluster holds that the inventory does not: an etcd member or a Node no inventory
// host matches (a control plane whose host died and was deleted with kubectl, a member left by
// a removal that stopped halfway). Never removed silently: reported as a warning with the
// command that removes it, on every apply, from the first control plane.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { etcdMemberList } from '../../src/kubernetes/etcd/etcd-member-list.js';
import { nodeLabels } from '../../src/kubernetes/facts/node-labels.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Task } from '../../src/orchestrator/engine/types.js';

/** Pure: the warning for members and Nodes that match no inventory host, or undefined. */
export function strayMembersWarning(
  inputs: Pick<ClusterInputs, 'inventory'>,
  members: readonly { name: string; peerUrls: readonly string[]; id: string }[],
  nodes: readonly string[],
): string | undefined {
  const hosts = inputs.inventory.hosts;
  const file = inputs.inventory.file;
  const controlPlanes = hosts.filter((h) => h.roles.includes('control-plane'));
  const known = (m: { name: string; peerUrls: readonly string[] }) =>
    controlPlanes.some((h) => h.name === m.name || m.peerUrls.includes(`https://${nodeAddress(h)}:2380`));
  const strayMembers = members.filter((m) => !known(m));
  const strayNodes = nodes.filter((n) => !hosts.some((h) => h.name === n));
  const said = [
    ...strayMembers.map((m) => `etcd member ${m.name || '(not started)'} (${m.id}, ${m.peerUrls.join(' ')}) matches no control plane of the inventory`),
    ...strayNodes.filter((n) => !strayMembers.some((m) => m.name === n)).map((n) => `Node ${n} matches no host of the inventory`),
  ];
  if (said.length === 0) return undefined;
  const names = [...new Set([...strayMembers.map((m) => m.name).filter(Boolean), ...strayNodes])];
  const how = names.map((n) => `kcluster remove-node -i ${file} ${n} --unreachable`).join('; ');
  return `${said.join('; ')}: kcluster leaves them in place${how ? `; if the host is gone for good, remove ${names.length === 1 ? 'it' : 'them'} with ${how}` : '; remove it with etcdctl member remove ID'} (a stray etcd member counts for quorum)`;
}

export function clusterMembersTask(inputs: Pick<ClusterInputs, 'inventory'>): Task<{ etcd: typeof etcdMemberList; nodes: typeof nodeLabels }, null> {
  return {
    name: 'etcd members and Nodes match the inventory',
    tags: ['addons', 'etcd'],
    facts: () => ({ etcd: etcdMemberList, nodes: nodeLabels }),
    plan: ({ etcd, nodes }) => {
      const members = etcd.listed ? etcd.members : [];
      const nodeNames = nodes.reachable ? Object.keys(nodes.nodes) : [];
      const warning = strayMembersWarning(inputs, members, nodeNames);
      const read = `${etcd.listed ? `${members.length} etcd members` : `etcd members not read (${etcd.detail})`}, ${nodes.reachable ? `${nodeNames.length} Nodes` : 'Nodes not read'}`;
      return warning === undefined ? noChange(`${read}, each an inventory host`) : noChange(read, warning);
    },
    apply: async () => undefined,
  };
}
