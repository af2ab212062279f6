// Before control planes join a running cluster, an etcd snapshot from a member it already has,
// copied to the controller (<stateDir>/backups, sha256 checked, as `etcd snapshot save`): a
// membership change is the step an operator wants a way back from. Nothing to do once every
// joining host is a member (a rerun after the join).
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { etcdMemberList } from '../../src/kubernetes/etcd/etcd-member-list.js';
import { saveEtcdSnapshot, savedSnapshotFigures } from '../../src/kubernetes/etcd/etcd-snapshot.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';

export function snapshotBeforeJoinRole(inputs: Pick<ClusterInputs, 'inventory' | 'topology'>, joining: readonly string[], name: string): Role {
  const file = `${inputs.inventory.stateDir}/backups/${name}`;
  const peerUrls = new Map(inputs.topology.controlPlanes.map((h) => [h.name, `https://${nodeAddress(h)}:2380`]));
  const task: Task<{ members: typeof etcdMemberList }, null> = {
    name: 'etcd snapshot before control planes join',
    tags: ['control-plane', 'etcd', 'etcd-backup'],
    facts: () => ({ members: etcdMemberList }),
    plan: ({ members }) => {
      if (!members.listed)
        throw new Error(`etcd's members cannot be read on this control plane (${members.detail}): no control plane joins a cluster whose etcd does not answer`);
      const notYet = joining.filter((h) => !members.members.some((m) => m.peerUrls.includes(peerUrls.get(h) ?? '')));
      if (notYet.length === 0) return noChange(`${joining.join(', ')} ${joining.length === 1 ? 'is' : 'are'} etcd members already`);
      return {
        kind: 'run',
        summary: `save an etcd snapshot to ${file} (verified) before ${notYet.join(', ')} ${notYet.length === 1 ? 'joins' : 'join'}`,
        payload: null,
      };
    },
    apply: async (_change, ctx) => {
      const saved = await saveEtcdSnapshot(ctx.connection, inputs.inventory.stateDir, name);
      ctx.log(`etcd snapshot ${saved.file}: ${savedSnapshotFigures(saved)}`);
    },
    verify: false,
  };
  return { name: 'etcd-backup', tags: ['control-plane'], tasks: [task] };
}
