// certs-rotate-ca: what `kcluster certs rotate-ca` runs for one phase of a CA rotation
// (src/kubernetes/pki/ca-rotation.ts). The phases that change what hosts hold (trust-new,
// reissue, drop-old) install the state folder's PKI as certs renew does
// (playbooks/pki-distribution.ts), the other nodes --max-unavailable at a time. The
// restart-pods phase rolls the workloads that read the cluster CA at start (roles/ca-rotation).
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { CaRotation, RotationPhase } from '../src/kubernetes/pki/ca-rotation.js';
import type { WorkloadRef } from '../src/kubernetes/pki/stale-trust-workloads.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { caRotationPodsRole } from '../roles/ca-rotation/index.js';
import { pkiDistributionPlays } from './pki-distribution.js';

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
  return { name, description, plays: pkiDistributionPlays(inputs, { maxUnavailable: options.maxUnavailable, stopOnFirstFailure: true }) };
}
