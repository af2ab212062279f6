// upgrade: what `kcluster upgrade` runs. Preflight; an etcd snapshot on the controller; the
// control planes one at a time (binaries, runtime, images, kubelet, static pods: the
// control-plane role waits until every static pod runs its new manifest; then the node is
// Ready at the new version); the addons; the other nodes in batches of --max-unavailable
// (cordon and drain, the same roles, Ready, uncordon); the pod network. Any failure stops the
// whole run where it is: the cluster keeps serving, and a rerun continues (done nodes plan
// nothing).
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { addonsRole } from '../roles/addons/index.js';
import { apiProxyRole } from '../roles/api-proxy/index.js';
import { artifactsRole } from '../roles/artifacts/index.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { imagesRole } from '../roles/images/index.js';
import { kubeletRole } from '../roles/kubelet/index.js';
import { podNetworkRole } from '../roles/pod-network/index.js';
import { runtimeRole } from './runtime-role.js';
import { identityRole, preflightRole } from '../roles/preflight/index.js';
import { drainRole, etcdBackupRole, nodeReadyRole } from '../roles/upgrade/index.js';

export interface UpgradeOptions {
  /** Nodes upgraded at once after the control planes: a count or a percentage. */
  readonly maxUnavailable: number | `${number}%`;
  readonly drainTimeoutMs: number;
  /** The control plane that takes the snapshot and applies the addons (default: the first; see operatorControlPlane). */
  readonly operator?: string;
}

export function upgradePlaybook(inputs: ClusterInputs, options: UpgradeOptions): Playbook {
  const operator = options.operator ?? inputs.topology.firstControlPlane.name;
  const nodeRoles = [artifactsRole(inputs), apiProxyRole(inputs), runtimeRole(inputs), imagesRole(inputs), kubeletRole(inputs)];
  return {
    name: 'upgrade',
    description: 'etcd snapshot, control planes one at a time, addons, then the other nodes in batches with drain and uncordon',
    plays: [
      { name: 'preflight', hosts: 'all', roles: [preflightRole(inputs)], anyErrorsFatal: true },
      { name: 'preflight across hosts', hosts: 'all', roles: [identityRole(inputs)], anyErrorsFatal: true },
      { name: 'etcd snapshot', hosts: operator, roles: [etcdBackupRole(inputs)], anyErrorsFatal: true },
      {
        name: 'control planes, one at a time',
        hosts: 'control-plane',
        serial: 1,
        roles: [...nodeRoles, controlPlaneRole(inputs, { running: true }), nodeReadyRole(inputs)],
        anyErrorsFatal: true,
      },
      { name: 'addons', hosts: operator, roles: [addonsRole(inputs)], anyErrorsFatal: true },
      {
        name: 'nodes, in batches',
        hosts: 'all,!control-plane',
        serial: options.maxUnavailable,
        roles: [drainRole(inputs, options.drainTimeoutMs), ...nodeRoles, nodeReadyRole(inputs)],
        anyErrorsFatal: true,
      },
      { name: 'pod network', hosts: 'all', roles: [podNetworkRole(inputs)] },
    ],
  };
}
