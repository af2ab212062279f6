// The operations table: each day-2 operation the soak may draw, on which topologies, how often,
// when the cluster can take it, and what it leaves the model as. Another
// operation is one more entry here (plus its commands in operation-commands.ts).
import { addControlPlane, addWorker, FIXED_HOST, inventoryHosts, removeControlPlane, removeWorker, type ClusterModel, type Topology } from './cluster-model.js';
import type { Random } from './prng.js';

export type PlannedOperation =
  | { readonly kind: 'add-worker'; readonly host: number }
  | { readonly kind: 'remove-worker'; readonly host: number }
  | { readonly kind: 'remove-control-plane'; readonly host: number }
  | { readonly kind: 'add-control-plane'; readonly host: number }
  | { readonly kind: 'readd-control-plane'; readonly host: number }
  | { readonly kind: 'lose-control-plane'; readonly host: number }
  | { readonly kind: 'certs-renew' }
  | { readonly kind: 'rotate-ca' }
  | { readonly kind: 'rotate-service-account-key' }
  | { readonly kind: 'secrets-rotate-key' }
  | { readonly kind: 'etcd-snapshot-save' }
  | { readonly kind: 'etcd-snapshot-restore' }
  | { readonly kind: 'kubelet-max-pods'; readonly maxPods: number }
  | { readonly kind: 'api-server-mutating-inflight'; readonly enabled: boolean }
  | { readonly kind: 'upgrade' }
  | { readonly kind: 'reboot-host'; readonly host: number };

export type OperationKind = PlannedOperation['kind'];

export interface OperationSpec {
  readonly kind: OperationKind;
  readonly topologies: readonly Topology[];
  /** Relative frequency among the operations the cluster can take at that step. */
  readonly weight: number;
  /** How many kcluster commands it runs (a fault lands in one of them). */
  readonly commands: number;
  readonly applicable: (model: ClusterModel) => boolean;
  /** Its parameters (which host, which value), drawn from the seed's generator. */
  readonly draw: (model: ClusterModel, random: Random) => PlannedOperation;
}

const BOTH: readonly Topology[] = ['single', 'ha'];
const HA: readonly Topology[] = ['ha'];
const removableControlPlanes = (m: ClusterModel): number[] => m.controlPlanes.filter((h) => h !== FIXED_HOST);

export const OPERATIONS: readonly OperationSpec[] = [
  {
    kind: 'add-worker',
    topologies: BOTH,
    weight: 3,
    commands: 1,
    applicable: (m) => m.spares.length > 0,
    draw: (m, r) => ({ kind: 'add-worker', host: r.pick(m.spares) }),
  },
  {
    kind: 'remove-worker',
    topologies: BOTH,
    weight: 3,
    commands: 2,
    applicable: (m) => m.workers.length > 0,
    draw: (m, r) => ({ kind: 'remove-worker', host: r.pick(m.workers) }),
  },
  // From three to two members (an even count: --allow-even), and back with add-control-plane.
  {
    kind: 'remove-control-plane',
    topologies: HA,
    weight: 2,
    commands: 2,
    applicable: (m) => m.controlPlanes.length === 3,
    draw: (m, r) => ({ kind: 'remove-control-plane', host: r.pick(removableControlPlanes(m)) }),
  },
  // A control plane's host destroyed (killed, kept down), then removed through another with
  // remove-node --unreachable and the inventory applied without it; its disk is wiped afterwards
  // and it comes back as a spare.
  {
    kind: 'lose-control-plane',
    topologies: HA,
    weight: 2,
    commands: 2,
    applicable: (m) => m.controlPlanes.length === 3,
    draw: (m, r) => ({ kind: 'lose-control-plane', host: r.pick(removableControlPlanes(m)) }),
  },
  {
    kind: 'add-control-plane',
    topologies: HA,
    weight: 3,
    commands: 1,
    applicable: (m) => m.controlPlanes.length < 3 && m.spares.length > 0,
    draw: (m, r) => ({ kind: 'add-control-plane', host: r.pick(m.spares) }),
  },
  // Issue 40's defect 2: removed, then applied at once with the host still listed.
  {
    kind: 'readd-control-plane',
    topologies: HA,
    weight: 2,
    commands: 2,
    applicable: (m) => m.controlPlanes.length === 3,
    draw: (m, r) => ({ kind: 'readd-control-plane', host: r.pick(removableControlPlanes(m)) }),
  },
  { kind: 'certs-renew', topologies: BOTH, weight: 2, commands: 1, applicable: () => true, draw: () => ({ kind: 'certs-renew' }) },
  { kind: 'rotate-ca', topologies: BOTH, weight: 2, commands: 1, applicable: () => true, draw: () => ({ kind: 'rotate-ca' }) },
  // The first run stops at drop-old (--keep-old-key); the second, after the keep time, drops the old key.
  {
    kind: 'rotate-service-account-key',
    topologies: BOTH,
    weight: 1,
    commands: 2,
    applicable: () => true,
    draw: () => ({ kind: 'rotate-service-account-key' }),
  },
  { kind: 'secrets-rotate-key', topologies: BOTH, weight: 2, commands: 1, applicable: () => true, draw: () => ({ kind: 'secrets-rotate-key' }) },
  { kind: 'etcd-snapshot-save', topologies: BOTH, weight: 1, commands: 1, applicable: () => true, draw: () => ({ kind: 'etcd-snapshot-save' }) },
  // A snapshot saved, then restored on every control plane: the cluster goes back a few seconds.
  {
    kind: 'etcd-snapshot-restore',
    topologies: BOTH,
    weight: 1,
    commands: 2,
    applicable: () => true,
    draw: () => ({ kind: 'etcd-snapshot-restore' }),
  },
  {
    kind: 'kubelet-max-pods',
    topologies: BOTH,
    weight: 1,
    commands: 1,
    applicable: () => true,
    // A value other than the current one, so the apply always has a kubelet change to roll.
    draw: (m, r) => ({ kind: 'kubelet-max-pods', maxPods: r.pick([100, 110, 120, 130, 140].filter((n) => n !== m.kubeletMaxPods)) }),
  },
  {
    kind: 'api-server-mutating-inflight',
    topologies: BOTH,
    weight: 1,
    commands: 1,
    applicable: () => true,
    draw: (m) => ({ kind: 'api-server-mutating-inflight', enabled: m.apiServerMutatingInflight300 !== true }),
  },
  // Once per soak: from the bundle's second-newest release, which the install runs, to its newest.
  { kind: 'upgrade', topologies: BOTH, weight: 2, commands: 1, applicable: (m) => m.upgraded !== true, draw: () => ({ kind: 'upgrade' }) },
  // A host of the cluster shut down cleanly and booted again, then apply (which should find nothing to do).
  {
    kind: 'reboot-host',
    topologies: BOTH,
    weight: 2,
    commands: 1,
    applicable: () => true,
    draw: (m, r) => ({ kind: 'reboot-host', host: r.pick(inventoryHosts(m)) }),
  },
];

export function operationSpec(kind: OperationKind): OperationSpec {
  const spec = OPERATIONS.find((o) => o.kind === kind);
  if (!spec) throw new Error(`no operation ${kind} in the table`);
  return spec;
}

/** The model once the operation is done. */
export function modelAfter(model: ClusterModel, op: PlannedOperation): ClusterModel {
  switch (op.kind) {
    case 'add-worker':
      return addWorker(model, op.host);
    case 'remove-worker':
      return removeWorker(model, op.host);
    case 'add-control-plane':
      return addControlPlane(model, op.host);
    case 'remove-control-plane':
    case 'lose-control-plane':
      return removeControlPlane(model, op.host);
    case 'kubelet-max-pods':
      return { ...model, kubeletMaxPods: op.maxPods };
    case 'api-server-mutating-inflight':
      return { ...model, apiServerMutatingInflight300: op.enabled };
    case 'upgrade':
      return { ...model, upgraded: true };
    case 'reboot-host':
    case 'readd-control-plane':
    case 'certs-renew':
    case 'rotate-ca':
    case 'rotate-service-account-key':
    case 'secrets-rotate-key':
    case 'etcd-snapshot-save':
    case 'etcd-snapshot-restore':
      return model;
  }
}

/** How the results name it: "remove-worker kcsoak2", "kubelet-max-pods 120". */
export function describeOperation(op: PlannedOperation, hostName: (host: number) => string): string {
  if ('host' in op) return `${op.kind} ${hostName(op.host)}`;
  if (op.kind === 'kubelet-max-pods') return `${op.kind} ${op.maxPods}`;
  if (op.kind === 'api-server-mutating-inflight') return `${op.kind} ${op.enabled}`;
  return op.kind;
}
