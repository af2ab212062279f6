// Whether a pod tolerates a taint for good, the way the taint eviction controller decides it:
// a pod that does is never evicted by that taint (and, for a DaemonSet's pod, the DaemonSet
// controller would put one right back if it were deleted while the Node exists).

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
  /** For a NoExecute taint: evicted after this many seconds all the same. */
  readonly tolerationSeconds?: number;
}

/** Kubernetes' ToleratesTaint: an empty key with Exists matches every key, an empty effect every effect. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== undefined && toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key !== undefined && toleration.key !== '' && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** Tolerated without a time limit: the taint never evicts the pod. */
export function toleratesForGood(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => t.tolerationSeconds === undefined && toleratesTaint(t, taint));
}
