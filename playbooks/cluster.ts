// cluster: what `kcluster apply` runs. Preflight on every host (nothing changes if any host
// fails it), then the nodes (binaries, containerd, images, kubelet), the control plane, the
// once-per-cluster addons from the first control plane, each node's pod network config, a
// last check from the first control plane that kube-proxy, flannel and CoreDNS run (then, in
// nftables mode, what flannel's iptables mode left removed on every node), then the
// operator's manifests and Helm charts (cluster.charts: helm runs on the controller, roles/charts).
// On a fresh install the workers' kubelets start only once the API server answers (see
// kubeletStartedRole), and CoreDNS is applied once kube-proxy and flannel run on every node
// (see roles/addons/running.ts). On a fresh install the control planes start together (a new etcd cluster needs its members
// up at once to reach quorum); on a running cluster they are converged one at a time, each
// back (API ready, static pods current) before the next, so a change that restarts etcd or the
// API server (a manifest, a certificate, the member list after remove-node) never restarts
// them on every control plane at once.
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Play, Playbook } from '../src/orchestrator/engine/types.js';
import { addonsRole } from '../roles/addons/index.js';
import { manifestsRole } from '../roles/manifests/index.js';
import { apiProxyRole } from '../roles/api-proxy/index.js';
import { apiVipRole } from '../roles/api-vip/index.js';
import { addonsRunningRole } from '../roles/addons/running.js';
import { chartsRole } from '../roles/charts/index.js';
import { artifactsRole } from '../roles/artifacts/index.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { snapshotBeforeJoinRole } from '../roles/control-plane/snapshot-before-join.js';
import { snapshotName } from '../src/kubernetes/etcd/etcd-snapshot.js';
import { etcdSnapshotScheduleRole } from '../roles/etcd-snapshot-schedule/index.js';
import { imagesRole } from '../roles/images/index.js';
import { kubeletRole, kubeletStartedRole } from '../roles/kubelet/index.js';
import { podNetworkRole } from '../roles/pod-network/index.js';
import { flannelIptablesLeftoversRole } from '../roles/pod-network/flannel-iptables-leftovers.js';
import { runtimeRole } from './runtime-role.js';
import { identityRole, preflightRole } from '../roles/preflight/index.js';

export const CLUSTER_PLAYBOOK_DESCRIPTION = 'preflight, container runtime, kubelet, PKI, control plane, addons, pod network';

export interface ClusterPlaybookOptions {
  /** A cluster already answers: converge the control planes one at a time. */
  readonly running: boolean;
  /** On a running cluster, the control planes that are etcd members already (see controlPlanePlays). */
  readonly etcdMembers?: readonly string[];
  /**
   * The control plane that runs the once-per-cluster plays (addons, their wait, the operator's
   * manifests): one that answers, so the first one being down does not stop them (default: the
   * first control plane).
   */
  readonly operator?: string;
}

/**
 * The control-plane plays. A fresh install starts every control plane together. On a running
 * cluster, the control planes that are no etcd member yet join first, one at a time (etcd takes
 * one learner at a time), then the members it had converge one at a time: each new API server
 * is up before an existing one restarts (a new control plane's address is added to the shared
 * API server certificate), so growing from one control plane keeps the API answering.
 */
export function controlPlanePlays(inputs: ClusterInputs, options: ClusterPlaybookOptions): Play[] {
  if (!options.running) return [{ name: 'control plane', hosts: 'control-plane', roles: [controlPlaneRole(inputs, { running: false })], anyErrorsFatal: true }];
  const names = inputs.topology.controlPlanes.map((h) => h.name);
  // No etcd pod visible (mirror pods not created yet) tells nothing about membership: every
  // control plane converges in the members' play, where each host's own etcd facts still decide
  // whether it joins (newControlPlaneRefusal reads an empty list the same way).
  const members = options.etcdMembers === undefined || options.etcdMembers.length === 0 ? names : options.etcdMembers;
  const joining = names.filter((h) => !members.includes(h));
  const member = names.find((h) => members.includes(h));
  const snapshot = snapshotName(new Date());
  // One snapshot per run: before a join (its own play, which says why), else before the first change.
  const role = controlPlaneRole(inputs, { running: true });
  const membersRole = joining.length > 0 ? role : controlPlaneRole(inputs, { running: true, snapshotBeforeChange: snapshot });
  return [
    ...(joining.length > 0 && member !== undefined
      ? [{ name: 'etcd snapshot', hosts: [member], roles: [snapshotBeforeJoinRole(inputs, joining, snapshot)], anyErrorsFatal: true }]
      : []),
    ...(joining.length > 0 ? [{ name: 'control planes joining', hosts: joining, serial: 1, roles: [role], anyErrorsFatal: true }] : []),
    {
      name: 'control plane',
      hosts: joining.length > 0 ? names.filter((h) => members.includes(h)) : 'control-plane',
      serial: 1,
      roles: [membersRole],
      anyErrorsFatal: true,
    },
  ];
}

/**
 * After addons-running, once every node runs the rolled flanneld (the old one rewrote its rules):
 * what flannel's iptables mode left, removed when it runs in nftables mode.
 */
export function flannelLeftoverPlays(inventory: Pick<ClusterInputs['inventory'], 'cluster'>): Play[] {
  return inventory.cluster.cni === 'flannel' && inventory.cluster.kubeProxy.mode === 'nftables'
    ? [{ name: "flannel's iptables rules gone", hosts: 'all', roles: [flannelIptablesLeftoversRole()] }]
    : [];
}

export function clusterPlaybook(inputs: ClusterInputs, options: ClusterPlaybookOptions): Playbook {
  const workers = inputs.topology.workers.map((h) => h.name);
  const startLater = options.running ? [] : workers;
  const operator = options.operator ?? inputs.topology.firstControlPlane.name;
  return {
    name: 'cluster',
    description: CLUSTER_PLAYBOOK_DESCRIPTION,
    plays: [
      { name: 'preflight', hosts: 'all', roles: [preflightRole(inputs)], anyErrorsFatal: true },
      { name: 'preflight across hosts', hosts: 'all', roles: [identityRole(inputs)], anyErrorsFatal: true },
      {
        name: 'nodes',
        hosts: 'all',
        roles: [artifactsRole(inputs), apiProxyRole(inputs), runtimeRole(inputs), imagesRole(inputs), kubeletRole(inputs, { startLater })],
      },
      // Every control plane's keepalived knows every other before a joining one can take the
      // address; one at a time, so that a restart never leaves the address without a holder.
      ...(inputs.inventory.cluster.apiEndpoint.virtualIp !== undefined
        ? [{ name: 'api virtual IP', hosts: 'control-plane', serial: 1, roles: [apiVipRole(inputs)], anyErrorsFatal: true }]
        : []),
      ...controlPlanePlays(inputs, options),
      ...(startLater.length > 0 ? [{ name: 'kubelets', hosts: startLater, roles: [kubeletStartedRole()] }] : []),
      { name: 'scheduled etcd snapshots', hosts: 'control-plane', roles: [etcdSnapshotScheduleRole(inputs)] },
      { name: 'addons', hosts: operator, roles: [addonsRole(inputs, { coreDns: false })] },
      { name: 'pod network', hosts: 'all', roles: [podNetworkRole(inputs)] },
      { name: 'addons running', hosts: operator, roles: [addonsRunningRole(inputs)] },
      ...flannelLeftoverPlays(inputs.inventory),
      { name: 'operator manifests', hosts: operator, roles: [manifestsRole(inputs)] },
      { name: 'charts', hosts: operator, roles: [chartsRole(inputs)] },
    ],
  };
}
