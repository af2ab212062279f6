// remove-node: what `kcluster remove-node NAME` runs. On a control plane that stays (the first
// other one in the inventory that answers): the quorum check and the drain, then the etcd
// member's removal for a control plane; on the node itself: the reset; on the control plane
// again: the Node object deleted. The API is reached through that control plane, so removing
// the control plane the admin endpoint points at works too. With --unreachable (the host is
// gone): no drain and no reset, only what the cluster holds of it.
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
import { firstAnswering } from '../src/orchestrator/ssh/first-answering.js';
import { apiServerAnswers } from '../src/kubernetes/kube/api-server-answers.js';
import { LIST_WAIT_MS } from '../src/kubernetes/cluster/running-cluster.js';

export interface RemoveNodePlan {
  readonly playbook: Playbook;
  /** The node's inventory entry (undefined: a host already gone from the inventory, with --unreachable). */
  readonly node: HostSettings | undefined;
  readonly controlPlane: boolean;
  readonly operator: HostSettings;
}

export interface RemoveNodeOptions {
  readonly drainTimeoutMs: number;
  /** The host is gone or cannot be reached: take it out through the others, without drain or reset. */
  readonly unreachable?: boolean;
  readonly allowEven?: boolean;
  /** Which control plane answers (default: a TCP probe of their SSH ports). */
  readonly firstAnswering?: (hosts: readonly HostSettings[]) => Promise<HostSettings | undefined>;
  /** How long to wait for that control plane's API server to answer (default LIST_WAIT_MS; 0: not asked, for a test that only builds the playbook). */
  readonly apiWaitMs?: number;
  /** Where to say what a wait is still waiting for. */
  readonly say?: (line: string) => void;
}

/** Refuses (InputError, nothing touched) what cannot be removed; otherwise the playbook. */
export async function removeNodePlaybook(inventory: Inventory, name: string, options: RemoveNodeOptions): Promise<RemoveNodePlan> {
  requireInstalledPki(inventory, 'remove-node');
  const node = inventory.hosts.find((h) => h.name === name);
  if (!node && options.unreachable !== true)
    throw new InputError(
      `${inventory.file}: no host named "${name}" (hosts: ${inventory.hosts.map((h) => h.name).join(', ')}); a host already taken out of the inventory is removed with --unreachable`,
    );
  const topology = topologyOrInputError(inventory);
  // Without its inventory entry, the removed host may have been a control plane: the etcd
  // steps find out (nothing to do when it is no member).
  const controlPlane = node === undefined || node.roles.includes('control-plane');
  const others = topology.controlPlanes.filter((h) => h.name !== name);
  if (others.length === 0) throw new InputError(`${name} is the only control plane: removing it destroys the cluster; use kcluster reset for that`);
  // Any control plane that answers, not only the first: the first may be the one that is gone.
  const operator = await (options.firstAnswering ?? ((hosts) => firstAnswering(hosts)))(others);
  if (!operator)
    throw new InputError(
      `no other control plane answers on its SSH port (${others.map((h) => `${h.name} ${h.ssh.address}:${h.ssh.port}`).join(', ')}): remove-node works through one; bring one back, then run it again`,
    );
  const pki = await ensureClusterPki(inventory.stateDir, pkiSpecOf(inventory, topology));
  const server = `https://${nodeAddress(operator)}:${topology.apiPort}`;
  const target: RemoveNodeTarget = {
    node: name,
    controlPlane,
    drainTimeoutMs: options.drainTimeoutMs,
    ...(options.unreachable === true ? { unreachable: true } : {}),
    ...(options.allowEven === true ? { allowEven: true } : {}),
    api: () => apiClient({ server, caCert: pki.trust.ca, clientCert: pki.admin.cert, clientKey: pki.admin.key }),
  };
  const unreachable = options.unreachable === true;
  // It may be booting (the soak: remove-node right after the control plane's power cycle failed at once).
  const apiWaitMs = options.apiWaitMs ?? LIST_WAIT_MS;
  if (apiWaitMs > 0)
    await apiServerAnswers(target.api(), server, { waitMs: apiWaitMs, command: 'remove-node', ...(options.say !== undefined ? { say: options.say } : {}) });
  return {
    node,
    controlPlane,
    operator,
    playbook: {
      name: 'remove-node',
      description: unreachable
        ? `take ${name} (unreachable) out of the cluster through ${operator.name}, delete its Node`
        : `take ${name} out of the cluster, reset it, delete its Node`,
      plays: [
        { name: `take ${name} out (from ${operator.name})`, hosts: [operator.name], roles: [takeOutRole(target)], anyErrorsFatal: true },
        ...(unreachable ? [] : [{ name: `reset ${name}`, hosts: [name], roles: [resetRole()], anyErrorsFatal: true }]),
        { name: `delete the Node ${name}`, hosts: [operator.name], roles: [deleteNodeRole(target)] },
      ],
    },
  };
}
