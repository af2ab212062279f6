// An etcd snapshot before a run first changes a control plane of a running cluster (a flag, a
// certificate, a key, a version): taken on the control plane about to change, through its own
// etcd member, and copied to the controller (<stateDir>/backups, sha256 checked, as `etcd
// snapshot save`), once per run. A converged run takes none.
// Two snapshots are not this hook, on purpose: whether an apply changes a control plane is known
// only when a task plans a change, hence a hook the engine runs then; a join and an upgrade are
// certain to change the cluster, and what decides whether their snapshot is still needed is
// etcd's member list (snapshot-before-join.ts) or the operator's kubelet version (roles/upgrade),
// so each is a play of its own, shown as such in the plan, before anything changes.
import { saveEtcdSnapshot, savedSnapshotFigures } from '../../src/kubernetes/etcd/etcd-snapshot.js';
import type { BeforeFirstChange } from '../../src/orchestrator/engine/types.js';

export function etcdSnapshotBeforeChange(stateDir: string, name: string): BeforeFirstChange {
  return {
    name: 'etcd snapshot before the first control-plane change',
    once: 'etcd-snapshot',
    run: async (ctx) => {
      const saved = await saveEtcdSnapshot(ctx.connection, stateDir, name);
      return `etcd snapshot ${saved.file} from ${ctx.host.name}: ${savedSnapshotFigures(saved)}`;
    },
  };
}
