// Kubernetes' version skew rules for an upgrade, as kcluster enforces them: one minor at a
// time, never down, and the kubelet never newer than the API server (control planes go first).
export interface ClusterVersions {
  readonly apiServer: string;
  /** node name -> kubelet version */
  readonly kubelets: Readonly<Record<string, string>>;
}

const parts = (v: string): [number, number, number] => {
  const m = /^v(\d+)\.(\d+)\.(\d+)/.exec(v);
  if (!m) throw new Error(`"${v}" is not a Kubernetes version`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

export function compareVersions(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/** Why this upgrade is refused, or undefined when it is allowed. */
export function skewProblem(current: ClusterVersions, target: string): string | undefined {
  const [tMajor, tMinor] = parts(target);
  const [aMajor, aMinor] = parts(current.apiServer);
  if (compareVersions(target, current.apiServer) < 0)
    return `the API servers run ${current.apiServer}; ${target} would be a downgrade, which kcluster refuses (restore an etcd snapshot to go back)`;
  if (tMajor !== aMajor || tMinor - aMinor > 1)
    return `the API servers run ${current.apiServer}; upgrade one minor at a time (to v${aMajor}.${aMinor + 1}.x first)`;
  for (const [node, kubelet] of Object.entries(current.kubelets)) {
    if (compareVersions(kubelet, target) > 0)
      return `node ${node} runs kubelet ${kubelet}, newer than ${target}: the kubelet may never be newer than the API server`;
    const [, kMinor] = parts(kubelet);
    if (tMinor - kMinor > 3) return `node ${node} runs kubelet ${kubelet}, more than 3 minors behind ${target}: upgrade it first`;
  }
  return undefined;
}
