// What the soak believes the cluster is: which lab hosts (by number, kcsoak1 is 1) are control
// planes, workers or spare (up but not in the inventory), and the inventory settings the
// operations change. Pure: the plan is made by walking this model, so a plan never asks for an
// operation the cluster cannot take at that step (no worker to remove, no spare to add).

export type Topology = 'single' | 'ha';

export interface ClusterModel {
  readonly controlPlanes: readonly number[];
  readonly workers: readonly number[];
  readonly spares: readonly number[];
  /** vars.kubeletConfig.maxPods, when an operation has set it. */
  readonly kubeletMaxPods?: number;
  /** cluster.apiServer.extraArgs.max-mutating-requests-inflight: 300 (true) or 200 (false), once an operation has set it. */
  readonly apiServerMutatingInflight300?: boolean;
  /** The cluster runs the bundle's newest release (true) or the one before it (unset: the install). */
  readonly upgraded?: boolean;
}

/**
 * The lab's host count and the cluster installed first, at the bundle's second-newest release
 * (so that an upgrade can be drawn): one spare host left out of the inventory.
 */
export function initialModel(topology: Topology): ClusterModel {
  return topology === 'single' ? { controlPlanes: [1], workers: [2], spares: [3] } : { controlPlanes: [1, 2, 3], workers: [4], spares: [5] };
}

export const labHostCount = (topology: Topology): number => (topology === 'single' ? 3 : 5);
export const labControlPlaneCount = (topology: Topology): number => (topology === 'single' ? 1 : 3);

/**
 * Host 1 is never removed: the bare pod is bound to it and the NodePort is polled through it,
 * so a removal elsewhere is measured from a host that stays.
 */
export const FIXED_HOST = 1;

export const inventoryHosts = (model: ClusterModel): number[] => [...model.controlPlanes, ...model.workers].sort((a, b) => a - b);

const without = (list: readonly number[], host: number): number[] => list.filter((h) => h !== host);
const withHost = (list: readonly number[], host: number): number[] => [...list, host].sort((a, b) => a - b);

export const addWorker = (m: ClusterModel, host: number): ClusterModel => ({ ...m, spares: without(m.spares, host), workers: withHost(m.workers, host) });
export const removeWorker = (m: ClusterModel, host: number): ClusterModel => ({ ...m, workers: without(m.workers, host), spares: withHost(m.spares, host) });
export const addControlPlane = (m: ClusterModel, host: number): ClusterModel => ({
  ...m,
  spares: without(m.spares, host),
  controlPlanes: withHost(m.controlPlanes, host),
});
export const removeControlPlane = (m: ClusterModel, host: number): ClusterModel => ({
  ...m,
  controlPlanes: without(m.controlPlanes, host),
  spares: withHost(m.spares, host),
});
