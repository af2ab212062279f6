// upgrade: what `kcluster upgrade` runs. Preflight; the new version's images (and the binaries
// no running service holds) on every node, before anything that runs them is rolled; an etcd
// snapshot on the controller; the control planes one at a time (binaries, runtime, images,
// kubelet, static pods: the control-plane role waits until every static pod runs its new
// manifest; then the node is Ready at the new version); the addons; the other nodes in
// batches of --max-unavailable (cordon and drain, the same roles, Ready, uncordon); the pod
// network; then what apply checks last: every addon rolled out, a Ready pod of the new
// template on every node. Any failure stops the whole run where it is: the cluster keeps
// serving, and a rerun continues (done nodes plan nothing).
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { addonsRole } from '../roles/addons/index.js';
import { addonsRunningRole } from '../roles/addons/running.js';
import { apiProxyRole } from '../roles/api-proxy/index.js';
import { apiVipRole } from '../roles/api-vip/index.js';
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
    description:
      'images on every node, etcd snapshot, control planes one at a time, addons, the other nodes in batches with drain and uncordon, addons rolled out',
    plays: [
      { name: 'preflight', hosts: 'all', roles: [preflightRole(inputs)], anyErrorsFatal: true },
      { name: 'preflight across hosts', hosts: 'all', roles: [identityRole(inputs)], anyErrorsFatal: true },
      // The addons play rolls kube-proxy and the pod network on every node long before a
      // worker's own turn: a node without the new image had its kubelet try to pull it (there
      // is no registry to pull from) and kept the roll at 1 of N even once the image came.
      { name: 'images, every node', hosts: 'all', roles: [artifactsRole(inputs), imagesRole(inputs)], anyErrorsFatal: true },
      { name: 'etcd snapshot', hosts: operator, roles: [etcdBackupRole(inputs)], anyErrorsFatal: true },
      {
        name: 'control planes, one at a time',
        hosts: 'control-plane',
        serial: 1,
        roles: [...nodeRoles, apiVipRole(inputs), controlPlaneRole(inputs, { running: true }), nodeReadyRole(inputs)],
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
      // An upgrade is done when every addon has rolled out at the new version on every node.
      { name: 'addons running', hosts: operator, roles: [addonsRunningRole(inputs)], anyErrorsFatal: true },
    ],
  };
}
