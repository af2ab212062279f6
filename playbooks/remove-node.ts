// remove-node: what `kcluster remove-node NAME` runs. On a control plane that stays (the first
// other one in the inventory): the quorum check and the drain, then the etcd member's removal
// for a control plane; on the node itself: the reset; on the control plane again: the Node
// object deleted. The API is reached through that control plane, so removing the control plane
// the admin endpoint points at works too.
import { pkiSpecOf } from '../src/kubernetes/cluster/pki-spec.js';
import { requireInstalledPki, topologyOrInputError } from '../src/kubernetes/cluster/installed-cluster.js';
import { nodeAddress } from '../src/kubernetes/cluster/topology.js';
import { InputError } from '../src/orchestrator/engine/input-error.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import type { HostSettings, Inventory } from '../src/orchestrator/inventory/model.js';
import { apiClient } from '../src/kubernetes/kube/api-client.js';
import { ensureClusterPki } from '../src/kubernetes/pki/cluster-pki.js';
import { deleteNodeRole, takeOutRole, type RemoveNodeTarget } from '../roles/remove-node/index.js';
import { resetRole } from '../roles/reset/index.js';

export interface RemoveNodePlan {
  readonly playbook: Playbook;
  readonly node: HostSettings;
  readonly operator: HostSettings;
}

/** Refuses (InputError, nothing touched) what cannot be removed; otherwise the playbook. */
export async function removeNodePlaybook(inventory: Inventory, name: string, drainTimeoutMs: number): Promise<RemoveNodePlan> {
  requireInstalledPki(inventory, 'remove-node');
  const node = inventory.hosts.find((h) => h.name === name);
  if (!node) throw new InputError(`${inventory.file}: no host named "${name}" (hosts: ${inventory.hosts.map((h) => h.name).join(', ')})`);
  const topology = topologyOrInputError(inventory);
  const controlPlane = node.roles.includes('control-plane');
  const operator = topology.controlPlanes.find((h) => h.name !== name);
  if (!operator) throw new InputError(`${name} is the only control plane: removing it destroys the cluster; use kcluster reset for that`);
  const pki = await ensureClusterPki(inventory.stateDir, pkiSpecOf(inventory, topology));
  const server = `https://${nodeAddress(operator)}:${topology.apiPort}`;
  const target: RemoveNodeTarget = {
    node: name,
    controlPlane,
    drainTimeoutMs,
    api: () => apiClient({ server, caCert: pki.ca.cert, clientCert: pki.admin.cert, clientKey: pki.admin.key }),
  };
  return {
    node,
    operator,
    playbook: {
      name: 'remove-node',
      description: `take ${name} out of the cluster, reset it, delete its Node`,
      plays: [
        { name: `take ${name} out (from ${operator.name})`, hosts: [operator.name], roles: [takeOutRole(target)], anyErrorsFatal: true },
        { name: `reset ${name}`, hosts: [name], roles: [resetRole()], anyErrorsFatal: true },
        { name: `delete the Node ${name}`, hosts: [operator.name], roles: [deleteNodeRole(target)] },
      ],
    },
  };
}
