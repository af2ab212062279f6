// Do this control plane's static pods run the manifests now on disk? For etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler: the manifest's
// kcluster.io/inputs-sha256 (the sha256 of the manifest and of every file the component reads,
// see roles/control-plane), the kubelet's own pod's, and whether the kubelet calls it Ready.
// Right after a manifest changes the previous pod still answers until the kubelet replaces it:
// comparing the two tells the restart happened. The kubelet's pods are read from the kubelet
// itself (its /pods, through the local API server's node proxy with admin.conf), not from the
// mirror pods: a mirror pod the kubelet could not update while the API server restarted is
// updated only at its next periodic sync, which kept a control plane waiting about a minute
// for a controller-manager that had long run its new manifest.
// A hand edit that kept the annotation has the same hash as kcluster's manifest: then the
// running container's creation time (crictl, host clock) against the manifest's mtime tells.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { adminKubectl } from './admin-kubectl.js';

export const STATIC_POD_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
const MANIFESTS = '/etc/kubernetes/manifests';

export interface ComponentState {
  readonly component: string;
  /** The manifest's kcluster.io/inputs-sha256 ("" when the manifest or annotation is missing). */
  readonly want: string;
  /** The kubelet's pod's ("" when the kubelet runs no such pod or could not be asked). */
  readonly have: string;
  readonly ready: boolean;
  /** Host clock, epoch seconds: when the manifest was last written, and when the running container was created (undefined: unknown). */
  readonly manifestWritten?: number;
  readonly containerCreated?: number;
}

export interface StaticPods {
  readonly components: readonly ComponentState[];
  /** What the API said when it could not list the pods (empty otherwise). */
  readonly detail: string;
  /** The host's clock when the fact was read (epoch seconds; undefined: unknown). */
  readonly now?: number;
}

/**
 * How long after a manifest is written a running container older than it may still be the
 * current one: a change the kubelet does not restart for (the same pod spec, a comment). The
 * kubelet notices a changed file at once (inotify) or at its next 20 s poll.
 */
export const KUBELET_PICKUP_SECONDS = 45;

/** The static pods in the kubelet's /pods answer: component -> hash and readiness. */
function kubeletStaticPods(json: string): Map<string, { hash: string; ready: boolean }> {
  interface KubeletPod {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    status?: { conditions?: { type?: string; status?: string }[] };
  }
  const pods = new Map<string, { hash: string; ready: boolean }>();
  for (const pod of (JSON.parse(json) as { items?: KubeletPod[] }).items ?? []) {
    const component = pod.metadata?.labels?.['component'];
    if (component === undefined || pod.metadata?.annotations?.['kubernetes.io/config.source'] !== 'file') continue;
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    pods.set(component, { hash: pod.metadata?.annotations?.['kcluster.io/inputs-sha256'] ?? '', ready });
  }
  return pods;
}

/** Pure: the fact's output in ("manifest C HASH" lines, "mtime", "now", "containers", then "kubelet-pods" with the kubelet's JSON or the API's error). */
export function parseStaticPods(stdout: string): StaticPods {
  const want = new Map<string, string>();
  let have = new Map<string, { hash: string; ready: boolean }>();
  const written = new Map<string, number>();
  const created = new Map<string, number>();
  let now: number | undefined;
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    const manifest = /^manifest (\S+) (\S+)$/.exec(line);
    const kubelet = /^kubelet-pods (.*)$/.exec(line);
    const mtime = /^mtime (\S+) (\d+)$/.exec(line);
    const clock = /^now (\d+)$/.exec(line);
    const containers = /^containers (\{.*)$/.exec(line);
    if (manifest) want.set(manifest[1]!, manifest[2] === '-' ? '' : manifest[2]!);
    else if (kubelet && kubelet[1]!.startsWith('{')) {
      try {
        have = kubeletStaticPods(kubelet[1]!);
      } catch {
        other.push(`the kubelet's pod list is not JSON: ${kubelet[1]!.slice(0, 100)}`);
      }
    } else if (kubelet) other.push(kubelet[1]!.trim());
    else if (mtime) written.set(mtime[1]!, Number(mtime[2]));
    else if (clock) now = Number(clock[1]);
    else if (containers) {
      try {
        const list = (JSON.parse(containers[1]!) as { containers?: { metadata?: { name?: string }; createdAt?: string }[] }).containers ?? [];
        for (const c of list) {
          const name = c.metadata?.name;
          const at = Math.floor(Number(c.createdAt ?? 'NaN') / 1e9);
          if (name !== undefined && Number.isFinite(at)) created.set(name, Math.max(created.get(name) ?? 0, at));
        }
      } catch {
        // The runtime's list is a hint only: without it the hashes decide.
      }
    } else if (line.trim() !== '') other.push(line.trim());
  }
  return {
    components: STATIC_POD_COMPONENTS.map((component) => ({
      component,
      want: want.get(component) ?? '',
      have: have.get(component)?.hash ?? '',
      ready: have.get(component)?.ready ?? false,
      ...(written.has(component) ? { manifestWritten: written.get(component)! } : {}),
      ...(created.has(component) ? { containerCreated: created.get(component)! } : {}),
    })),
    detail: other.join(' ').slice(0, 300),
    ...(now !== undefined ? { now } : {}),
  };
}

/** Components not yet running their manifest, Ready: "kube-apiserver (old pod)", ... */
export function lagging(pods: StaticPods): string[] {
  return pods.components.flatMap((c) => {
    if (c.want === '') return [`${c.component} (no manifest with kcluster.io/inputs-sha256)`];
    if (c.have === '') return [`${c.component} (the kubelet runs no such pod yet)`];
    if (c.have !== c.want) return [`${c.component} (the previous pod still runs)`];
    // The same hash, but the container predates its manifest: a hand edit that kept the
    // annotation, undone by this write; the kubelet has not restarted the pod yet.
    const predates = c.manifestWritten !== undefined && c.containerCreated !== undefined && c.containerCreated < c.manifestWritten;
    if (predates && pods.now !== undefined && pods.now - c.manifestWritten! < KUBELET_PICKUP_SECONDS) return [`${c.component} (its container predates its manifest: the kubelet has not restarted it yet)`];
    return c.ready ? [] : [`${c.component} (not Ready)`];
  });
}

export function staticPods(node: string): Fact<StaticPods> {
  return {
    key: `static-pods:${node}`,
    become: true,
    script: sh`for c in ${[...STATIC_POD_COMPONENTS]}; do want=$(sed -n 's/^[[:space:]]*kcluster\\.io\\/inputs-sha256:[[:space:]]*//p' ${MANIFESTS}/"$c".yaml 2>/dev/null | head -n 1); echo "manifest $c \${want:--}"; done
for c in ${[...STATIC_POD_COMPONENTS]}; do m=$(stat -c %Y ${MANIFESTS}/"$c".yaml 2>/dev/null) && echo "mtime $c $m"; done
echo "now $(date +%s)"
printf 'containers '; crictl ps --state running -o json 2>/dev/null | tr -d '\n'; echo
printf 'kubelet-pods '; ${adminKubectl(5)} get --raw /api/v1/nodes/${node}/proxy/pods 2>&1 | tr -d '\n'; echo; true`,
    parse: (stdout) => parseStaticPods(stdout),
  };
}
