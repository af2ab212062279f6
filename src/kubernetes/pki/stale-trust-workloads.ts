// Which workloads run pods that read the cluster CA before its new trust bundle was published:
// a pod gets kube-root-ca.crt (the controller-manager's --root-ca-file, in every namespace)
// through its ServiceAccount token volume or a ConfigMap volume, and clients such as client-go
// read it once at start. Such pods stop trusting the API server once its certificate comes
// from the new CA, so a CA rotation restarts them before reissuing (ca-rotation.ts).
// Pure: a pod list (kubectl get pods -A -o json, or the API's) in, workloads out.

export interface WorkloadRef {
  readonly namespace: string;
  /** A bare pod or a Job's cannot be rolled: the operator deletes or reruns it. */
  readonly kind: 'Deployment' | 'DaemonSet' | 'StatefulSet' | 'Pod';
  readonly name: string;
}

interface Pod {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly labels?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string; readonly controller?: boolean }[];
  };
  readonly spec?: {
    readonly volumes?: readonly {
      readonly configMap?: { readonly name?: string };
      readonly projected?: { readonly sources?: readonly { readonly configMap?: { readonly name?: string } }[] };
    }[];
  };
  readonly status?: {
    readonly phase?: string;
    readonly startTime?: string;
    readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
  };
}

export interface PodList {
  readonly items?: readonly Pod[];
}

const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

function readsRootCa(pod: Pod): boolean {
  return (pod.spec?.volumes ?? []).some(
    (v) => v.configMap?.name === ROOT_CA_CONFIGMAP || (v.projected?.sources ?? []).some((s) => s.configMap?.name === ROOT_CA_CONFIGMAP),
  );
}

function ownerOf(pod: Pod): WorkloadRef {
  const namespace = pod.metadata?.namespace ?? 'default';
  const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.controller === true);
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  if (owner?.kind === 'ReplicaSet' && owner.name !== undefined && hash !== undefined && owner.name.endsWith(`-${hash}`))
    return { namespace, kind: 'Deployment', name: owner.name.slice(0, -hash.length - 1) };
  if ((owner?.kind === 'DaemonSet' || owner?.kind === 'StatefulSet') && owner.name !== undefined) return { namespace, kind: owner.kind, name: owner.name };
  return { namespace, kind: 'Pod', name: pod.metadata?.name ?? '?' };
}

/** The pods of these workloads that are not Ready yet (a rolled workload is done when none is left), by name. */
export function unreadyPodsOf(pods: PodList, workloads: readonly WorkloadRef[]): string[] {
  const wanted = new Set(workloads.map(key));
  return (pods.items ?? [])
    .filter((pod) => pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && wanted.has(key(ownerOf(pod))))
    .filter((pod) => !(pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'))
    .map((pod) => `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? '?'}`)
    .sort();
}

const key = (w: WorkloadRef): string => `${w.namespace}/${w.kind}/${w.name}`;

/**
 * A pod template annotation a rotation writes when it rolls a workload, with a value of that
 * rotation alone: a pod that carries it was made from a template patched after the trust
 * bundle was published, whatever its start time says.
 */
export interface RollMark {
  readonly annotation: string;
  readonly value: string;
}

/**
 * Workloads with a running pod that reads the cluster CA and may have started before
 * `publishedAt`, sorted. A pod's start time has whole seconds and the publish time
 * milliseconds, so a pod started in the publish's own second is taken as stale unless it
 * carries `rolled` (the identity of the roll that made it): a roll in that second would
 * otherwise look stale for ever, and rolling it again with the same mark changes nothing.
 */
export function workloadsWithStaleTrust(pods: PodList, publishedAt: Date, rolled?: RollMark): WorkloadRef[] {
  const found = new Map<string, WorkloadRef>();
  for (const pod of pods.items ?? []) {
    if (pod.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined) continue;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    if (!readsRootCa(pod)) continue;
    if (rolled !== undefined && pod.metadata?.annotations?.[rolled.annotation] === rolled.value) continue;
    const started = Date.parse(pod.status?.startTime ?? '');
    // Not started yet: it will read the bundle published now.
    if (Number.isNaN(started) || started >= publishedAt.getTime()) continue;
    const owner = ownerOf(pod);
    found.set(key(owner), owner);
  }
  return [...found.values()].sort((a, b) => key(a).localeCompare(key(b)));
}

/** The namespaces whose workloads a CA rotation restarts by itself: kcluster's addons run there. */
export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'local-path-storage'];

export const isSystemWorkload = (w: WorkloadRef): boolean => SYSTEM_NAMESPACES.includes(w.namespace);

export const describeWorkload = (w: WorkloadRef): string => `${w.kind.toLowerCase()}/${w.name} -n ${w.namespace}`;
