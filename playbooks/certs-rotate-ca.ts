// certs-rotate-ca: what `kcluster certs rotate-ca` runs for one phase of a CA rotation
// (src/kubernetes/pki/ca-rotation.ts). The phases that change what hosts hold (trust-new,
// reissue, drop-old) are distributions like certs renew's: the control planes one at a time
// (certificates, keys, bundles and kubeconfigs; each static pod restarts because its manifest
// carries the sha256 of what it reads; then wait until every static pod runs its new manifest
// and is Ready, and the node is Ready), then the other nodes in batches (the kubelet's bundle,
// kubeconfig and serving certificate; the kubelet restarts, pods keep running). The
// restart-pods phase rolls the workloads that read the cluster CA at start (roles/ca-rotation).
// An etcd snapshot is taken before the first control plane changes.
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { CaRotation, RotationPhase } from '../src/kubernetes/pki/ca-rotation.js';
import type { WorkloadRef } from '../src/kubernetes/pki/stale-trust-workloads.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { staticPodsCurrentRole } from '../roles/static-pods/index.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { kubeletRole } from '../roles/kubelet/index.js';
import { nodeReadyRole } from '../roles/upgrade/index.js';
import { caRotationPodsRole } from '../roles/ca-rotation/index.js';
import { snapshotName } from '../src/kubernetes/etcd/etcd-snapshot.js';

export interface RotateCaPhaseOptions {
  /** Nodes other than control planes changed at once. */
  readonly maxUnavailable: number | `${number}%`;
  /** restart-pods: when the two-CA bundle was in every namespace. */
  readonly trustPublishedAt?: Date;
  /** restart-pods: which workloads to roll (kcluster's addons, and the operator's when asked). */
  readonly selected?: (w: WorkloadRef) => boolean;
}

export function rotateCaPhasePlaybook(inputs: ClusterInputs, rotation: CaRotation, phase: RotationPhase, options: RotateCaPhaseOptions): Playbook {
  const name = `certs-rotate-ca ${phase}`;
  const description = `rotation of ${rotation.cas.join(', ')}, phase ${phase}`;
  if (phase === 'restart-pods') {
    if (options.trustPublishedAt === undefined || options.selected === undefined)
      throw new Error('restart-pods needs the time the bundle was published and the workloads to roll');
    return {
      name,
      description,
      plays: [
        {
          name: 'pods restarted',
          hosts: inputs.topology.firstControlPlane.name,
          anyErrorsFatal: true,
          roles: [caRotationPodsRole(inputs, rotation, options.trustPublishedAt, options.selected)],
        },
      ],
    };
  }
  return {
    name,
    description,
    plays: [
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
        name: 'other nodes, in batches',
        hosts: 'all,!control-plane',
        serial: options.maxUnavailable,
        anyErrorsFatal: true,
        roles: [kubeletRole(inputs), nodeReadyRole(inputs)],
      },
    ],
  };
}
