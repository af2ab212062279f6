// etcd-snapshot: what `kcluster etcd snapshot save|restore` run (roles/etcd-snapshot).
// save: one play on one control plane (the one named with --from, or the first in the
// inventory whose SSH port answers, said when it is not the first).
// restore: one play per step on every control plane, each a barrier, then a cleanup play that
// runs whatever failed, then the API server waited for and every node's pod network brought in
// line with its restored Node (roles/pod-network).
import { basename } from 'node:path';
import { requireInstalledPki, topologyOrInputError } from '../src/kubernetes/cluster/installed-cluster.js';
import { nodeAddress } from '../src/kubernetes/cluster/topology.js';
import { restorePlan } from '../src/kubernetes/etcd/etcd-restore.js';
import { HOST_BACKUP_DIR } from '../src/kubernetes/etcd/etcd-snapshot.js';
import { InputError } from '../src/orchestrator/engine/input-error.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import type { HostSettings, Inventory } from '../src/orchestrator/inventory/model.js';
import { firstAnswering } from '../src/orchestrator/ssh/first-answering.js';
import { buildRole, restartRole, saveRole, stopRole, swapRole, uploadRole, type SnapshotSaveTarget } from '../roles/etcd-snapshot/index.js';
import { waitForControlPlane } from '../roles/control-plane/wait.js';
import { podNetworkRole } from '../roles/pod-network/index.js';

/**
 * The control plane a snapshot is taken on when --from does not name one: the first in the
 * inventory whose SSH port answers, said when it is not the first (a down first control plane
 * does not stop a backup).
 */
export async function defaultSnapshotHost(
  inventory: Inventory,
  log: (line: string) => void,
  answering: (hosts: readonly HostSettings[]) => Promise<HostSettings | undefined> = (hosts) => firstAnswering(hosts),
): Promise<string> {
  const controlPlanes = topologyOrInputError(inventory).controlPlanes;
  const first = controlPlanes[0]!.name;
  const chosen = controlPlanes.length === 1 ? controlPlanes[0] : await answering(controlPlanes);
  if (chosen === undefined) return first; // none answers: the run says so on the first
  if (chosen.name !== first) log(`the snapshot is taken on ${chosen.name}: ${first} does not answer on its SSH port (--from names another)`);
  return chosen.name;
}

export function snapshotSavePlaybook(inventory: Inventory, from: string | undefined, target: SnapshotSaveTarget): Playbook {
  requireInstalledPki(inventory, 'etcd snapshot save');
  const controlPlanes = topologyOrInputError(inventory).controlPlanes.map((h) => h.name);
  const host = from ?? controlPlanes[0]!;
  if (!controlPlanes.includes(host))
    throw new InputError(`--from ${host}: not a control plane of ${inventory.file} (control planes: ${controlPlanes.join(', ')})`);
  return {
    name: 'etcd-snapshot-save',
    description: `save a snapshot of etcd from ${host} to ${target.stateDir}/backups`,
    plays: [{ name: `etcd snapshot from ${host}`, hosts: [host], roles: [saveRole(target)] }],
  };
}

export interface RestoreInput {
  readonly localFile: string;
  readonly sha256: string;
  /** For the kept data dir and the cluster token (the command's clock, not the plan's). */
  readonly stamp: string;
}

export function snapshotRestorePlaybook(inventory: Inventory, input: RestoreInput): Playbook {
  requireInstalledPki(inventory, 'etcd snapshot restore');
  const cps = topologyOrInputError(inventory).controlPlanes;
  const names = cps.map((h) => h.name);
  const plan = restorePlan(
    cps.map((h) => ({ name: h.name, address: nodeAddress(h) })),
    `${HOST_BACKUP_DIR}/${basename(input.localFile)}`,
    input.stamp,
  );
  const target = { ...plan, localFile: input.localFile, sha256: input.sha256 };
  const barrier = { hosts: names, anyErrorsFatal: true } as const;
  return {
    name: 'etcd-snapshot-restore',
    description: `replace the state of cluster ${inventory.cluster.name} with ${basename(input.localFile)} on ${names.join(', ')}`,
    plays: [
      { name: 'the snapshot on every control plane', ...barrier, roles: [uploadRole(target)] },
      { name: 'the restored data dir built beside the current one', ...barrier, roles: [buildRole(target)] },
      { name: 'the control plane stopped everywhere', ...barrier, roles: [stopRole()] },
      { name: 'the restored data swapped in, the control plane started', ...barrier, roles: [swapRole(target)] },
      { name: 'nothing left stopped or half-built', hosts: names, always: true, roles: [restartRole()] },
      { name: 'the API server answers', hosts: names, anyErrorsFatal: true, roles: [{ name: 'control-plane-ready', tasks: [waitForControlPlane(false)] }] },
      { name: "each node's pod network follows its restored Node", hosts: 'all', roles: [podNetworkRole({ inventory })] },
    ],
  };
}
