// The plays that install the state folder's PKI on a running cluster, shared by `certs renew`
// and each distribution phase of `certs rotate-ca`: the control planes one at a time (their
// certificates, keys and kubeconfigs, then the kubelet's; each static pod restarts because its
// manifest carries the sha256 of what it reads; then wait until every static pod runs its new
// manifest and is Ready, and the node is Ready), then the other nodes (the kubelet's
// kubeconfig, trust bundle and serving certificate; the kubelet restarts, pods keep running).
// An etcd snapshot is taken before the first control plane changes
// (roles/control-plane/snapshot-before-change.ts).
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Play } from '../src/orchestrator/engine/types.js';
import { staticPodsCurrentRole } from '../roles/static-pods/index.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { kubeletRole } from '../roles/kubelet/index.js';
import { nodeReadyRole } from '../roles/upgrade/index.js';
import { snapshotName } from '../src/kubernetes/etcd/etcd-snapshot.js';

export interface PkiDistributionOptions {
  /** The other nodes changed at once (all at once when absent). */
  readonly maxUnavailable?: number | `${number}%`;
  /** Stop every host once one fails (a rotation's phase must be whole before the next). */
  readonly stopOnFirstFailure?: boolean;
}

export function pkiDistributionPlays(inputs: ClusterInputs, options: PkiDistributionOptions = {}): Play[] {
  return [
    {
      name: 'control planes, one at a time',
      hosts: 'control-plane',
      serial: 1,
      roles: [
        controlPlaneRole(inputs, { running: true, snapshotBeforeChange: snapshotName(new Date()) }),
        kubeletRole(inputs),
        staticPodsCurrentRole(),
        nodeReadyRole(inputs),
      ],
      anyErrorsFatal: true,
    },
    {
      name: options.maxUnavailable !== undefined ? 'other nodes, in batches' : 'other nodes',
      hosts: 'all,!control-plane',
      ...(options.maxUnavailable !== undefined ? { serial: options.maxUnavailable } : {}),
      ...(options.stopOnFirstFailure ? { anyErrorsFatal: true } : {}),
      roles: [kubeletRole(inputs), nodeReadyRole(inputs)],
    },
  ];
}
