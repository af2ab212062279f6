// Do this control plane's static pods run the manifests now on disk? For etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler: the manifest's
// kcluster.io/inputs-sha256 (the sha256 of the manifest and of every file the component reads,
// see roles/control-plane), the running mirror pod's (read through the local API server with
// admin.conf), and whether the pod is Ready. Right after a manifest changes the previous pod
// still answers until the kubelet replaces it: comparing the two tells the restart happened.
// A hand edit that kept the annotation has the same hash as kcluster's manifest: then the
// running container's creation time (crictl, host clock) against the manifest's mtime tells.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { adminKubectl } from './admin-kubectl.js';

/** Where the kubelet reads static pod manifests (its staticPodPath). */
export const MANIFESTS_DIR = '/etc/kubernetes/manifests';
export const STATIC_POD_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

export interface ComponentState {
  readonly component: string;
  /** The manifest's kcluster.io/inputs-sha256 ("" when the manifest or annotation is missing). */
  readonly want: string;
  /** The running mirror pod's ("" when there is no mirror pod or the API did not answer). */
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

/** Pure: the fact's output in ("manifest C HASH" lines, then "pod C HASH READY" lines or the API's error). */
export function parseStaticPods(stdout: string): StaticPods {
  const want = new Map<string, string>();
  const have = new Map<string, { hash: string; ready: boolean }>();
  const written = new Map<string, number>();
  const created = new Map<string, number>();
  let now: number | undefined;
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    const manifest = /^manifest (\S+) (\S+)$/.exec(line);
    const pod = /^pod (\S+) (\S*) ?(\S*)$/.exec(line);
    const mtime = /^mtime (\S+) (\d+)$/.exec(line);
    const clock = /^now (\d+)$/.exec(line);
    const containers = /^containers (\{.*)$/.exec(line);
    if (manifest) want.set(manifest[1]!, manifest[2] === '-' ? '' : manifest[2]!);
    else if (pod) have.set(pod[1]!, { hash: pod[2]!, ready: pod[3] === 'True' });
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
    if (c.have === '') return [`${c.component} (no mirror pod yet)`];
    if (c.have !== c.want) return [`${c.component} (the previous pod still runs)`];
    // The same hash, but the container predates its manifest: a hand edit that kept the
    // annotation, undone by this write; the kubelet has not restarted the pod yet.
    const predates = c.manifestWritten !== undefined && c.containerCreated !== undefined && c.containerCreated < c.manifestWritten;
    if (predates && pods.now !== undefined && pods.now - c.manifestWritten! < KUBELET_PICKUP_SECONDS)
      return [`${c.component} (its container predates its manifest: the kubelet has not restarted it yet)`];
    return c.ready ? [] : [`${c.component} (not Ready)`];
  });
}

export function staticPods(node: string): Fact<StaticPods> {
  const podNames = STATIC_POD_COMPONENTS.map((c) => `${c}-${node}`);
  return {
    key: `static-pods:${node}`,
    become: true,
    script: sh`for c in ${[...STATIC_POD_COMPONENTS]}; do want=$(sed -n 's/^[[:space:]]*kcluster\\.io\\/inputs-sha256:[[:space:]]*//p' ${MANIFESTS_DIR}/"$c".yaml 2>/dev/null | head -n 1); echo "manifest $c \${want:--}"; done
for c in ${[...STATIC_POD_COMPONENTS]}; do m=$(stat -c %Y ${MANIFESTS_DIR}/"$c".yaml 2>/dev/null) && echo "mtime $c $m"; done
echo "now $(date +%s)"
printf 'containers '; crictl ps --state running -o json 2>/dev/null | tr -d '\n'; echo
${adminKubectl(5)} -n kube-system get pod ${podNames} -o 'jsonpath={range .items[*]}pod {.metadata.labels.component} {.metadata.annotations.kcluster\\.io/inputs-sha256} {range .status.conditions[?(@.type=="Ready")]}{.status}{end}{"\\n"}{end}' 2>&1 | tail -n 8; true`,
    parse: (stdout) => parseStaticPods(stdout),
    // The host's clock moves by itself: a plan file must not call the host changed for it.
    volatile: ['now'],
  };
}
