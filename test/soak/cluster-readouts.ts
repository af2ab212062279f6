// What the invariants read from the cluster, parsed: etcdctl's member list, the Nodes and their
// Ready condition, a Deployment's Available condition, a pod's phase. Pure: command output in.

export interface EtcdMember {
  readonly name: string;
  readonly started: boolean;
  readonly learner: boolean;
}

/** `etcdctl member list -w simple`: "ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER" a line. */
export function parseEtcdMemberList(out: string): EtcdMember[] {
  return out
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.split(',').map((f) => f.trim()))
    .map((f) => ({ name: f[2] ?? '', started: f[1] === 'started', learner: f[5] === 'true' }));
}

interface Condition {
  readonly type: string;
  readonly status: string;
}

/** `kubectl get nodes -o json`: each Node's name and whether its Ready condition is True. */
export function nodeReadiness(json: string): Map<string, boolean> {
  const nodes = JSON.parse(json) as { items: { metadata: { name: string }; status?: { conditions?: Condition[] } }[] };
  return new Map(nodes.items.map((n) => [n.metadata.name, (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')]));
}

/** `kubectl get deployment NAME -o json`: its Available condition is True and every replica is available. */
export function deploymentAvailable(json: string): boolean {
  const d = JSON.parse(json) as { spec?: { replicas?: number }; status?: { availableReplicas?: number; conditions?: Condition[] } };
  const available = (d.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True');
  return available && (d.status?.availableReplicas ?? 0) >= (d.spec?.replicas ?? 1);
}

/** `kubectl get pod NAME -o json`: its phase, "missing" when the output names no pod. */
export function podPhase(json: string): string {
  const pod = JSON.parse(json) as { status?: { phase?: string } };
  return pod.status?.phase ?? 'unknown';
}

/**
 * `kubectl get pods -A -o json`: "namespace/name on node" of each pod bound to a node that is
 * not among `nodes` (a removed host's pods that were never deleted).
 */
export function podsOnMissingNodes(json: string, nodes: readonly string[]): string[] {
  const pods = JSON.parse(json) as { items: { metadata: { namespace: string; name: string }; spec?: { nodeName?: string } }[] };
  return pods.items
    .filter((p) => p.spec?.nodeName !== undefined && !nodes.includes(p.spec.nodeName))
    .map((p) => `${p.metadata.namespace}/${p.metadata.name} on ${p.spec!.nodeName!}`);
}

/** The difference between two sets of names, for a violation's message: "missing a, b; extra c". */
export function setDifference(expected: readonly string[], actual: readonly string[]): string {
  const missing = expected.filter((e) => !actual.includes(e));
  const extra = actual.filter((a) => !expected.includes(a));
  return [missing.length > 0 ? `missing ${missing.join(', ')}` : '', extra.length > 0 ? `extra ${extra.join(', ')}` : ''].filter((s) => s !== '').join('; ');
}
