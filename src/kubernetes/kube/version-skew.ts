// Kubernetes' version skew rules for an upgrade, as kcluster enforces them: one minor at a
// time, never down, and the kubelet never newer than the API server (control planes go first).
export interface ClusterVersions {
  readonly apiServer: string;
  /** node name -> kubelet version */
  readonly kubelets: Readonly<Record<string, string>>;
}

const VERSION = /^v(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

const parts = (v: string): [number, number, number] => {
  const m = VERSION.exec(v);
  if (!m) throw new Error(`"${v}" is not a Kubernetes version`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
};

/** The pre-release identifiers ("rc.1" of v1.37.0-rc.1), empty for a release. */
const preRelease = (v: string): string[] => VERSION.exec(v)?.[4]?.split('.') ?? [];

/** Semantic Versioning's order of pre-release identifiers: numeric below alphanumeric, numbers by value. */
function comparePreRelease(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length; // a release is above its pre-releases
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x === y) continue;
    const [xn, yn] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Negative, zero or positive as `a` is older than, the same as or newer than `b`, in Semantic
 * Versioning's order: v1.37.0-alpha.1 < v1.37.0-rc.1 < v1.37.0 (a pre-release is below its
 * release); build metadata (+...) does not count.
 */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return comparePreRelease(preRelease(a), preRelease(b));
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
