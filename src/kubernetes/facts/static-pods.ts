// Do this control plane's static pods run the manifests now on disk? For etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler: the manifest's
// kcluster.io/inputs-sha256 (the sha256 of the manifest and of every file the component reads,
// see roles/control-plane), the running mirror pod's (read through the local API server with
// admin.conf), and whether the pod is Ready. Right after a manifest changes the previous pod
// still answers until the kubelet replaces it: comparing the two tells the restart happened.
// A hand edit that kept the annotation has the same hash as kcluster's manifest: then the
// running container's creation time (crictl, host clock) against the manifest's mtime tells.
// The kubelet reports a recreated mirror pod's status late (it skips updates for a pod deleted
// and created again until a later sync, up to a minute), so the host's own view counts too: a
// ready sandbox carrying the manifest's hash with a running container, and the component
// serving (its port listening; the API server answering /readyz).
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { adminKubectl } from './admin-kubectl.js';

/** Where the kubelet reads static pod manifests (its staticPodPath). */
export const MANIFESTS_DIR = '/etc/kubernetes/manifests';
export const STATIC_POD_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type StaticPodComponent = (typeof STATIC_POD_COMPONENTS)[number];

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
  /** On the host, without the API: a ready sandbox with the manifest's hash runs a container of it, and its port listens (undefined: crictl did not answer). */
  readonly local?: { readonly current: boolean; readonly listening: boolean };
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

/** The local ports that say a component serves (the API server's readiness is read by the apiReady fact instead). */
const SERVING_PORTS: Readonly<Record<string, number>> = { etcd: 2379, 'kube-controller-manager': 10257, 'kube-scheduler': 10259 };

interface Sandbox {
  readonly id: string;
  readonly component: string;
  readonly hash: string;
}

function parseSandboxes(json: string): Sandbox[] | undefined {
  try {
    const items =
      (JSON.parse(json) as { items?: { id?: string; state?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }).items ?? [];
    return items
      .filter((p) => p.state === 'SANDBOX_READY' && p.id !== undefined && p.labels?.['component'] !== undefined)
      .map((p) => ({ id: p.id!, component: p.labels!['component']!, hash: p.annotations?.['kcluster.io/inputs-sha256'] ?? '' }));
  } catch {
    // The runtime's lists are evidence only: without them the mirror pods decide.
    return undefined;
  }
}

/** Pure: the fact's output in ("manifest C HASH" lines, then "pod C HASH READY" lines or the API's error). */
export function parseStaticPods(stdout: string): StaticPods {
  const want = new Map<string, string>();
  const have = new Map<string, { hash: string; ready: boolean }>();
  const written = new Map<string, number>();
  const created = new Map<string, number>();
  const runningIn = new Map<string, Set<string>>(); // container name -> the sandboxes it runs in
  let sandboxes: Sandbox[] | undefined;
  let listening: Set<number> | undefined;
  let now: number | undefined;
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    const manifest = /^manifest (\S+) (\S+)$/.exec(line);
    const pod = /^pod (\S+) (\S*) ?(\S*)$/.exec(line);
    const mtime = /^mtime (\S+) (\d+)$/.exec(line);
    const clock = /^now (\d+)$/.exec(line);
    const containers = /^containers (\{.*)$/.exec(line);
    const pods = /^sandboxes (\{.*)$/.exec(line);
    const ports = /^listening( .*)?$/.exec(line);
    if (manifest) want.set(manifest[1]!, manifest[2] === '-' ? '' : manifest[2]!);
    else if (pod) have.set(pod[1]!, { hash: pod[2]!, ready: pod[3] === 'True' });
    else if (mtime) written.set(mtime[1]!, Number(mtime[2]));
    else if (clock) now = Number(clock[1]);
    else if (containers) {
      try {
        const list =
          (JSON.parse(containers[1]!) as { containers?: { metadata?: { name?: string }; createdAt?: string; podSandboxId?: string }[] }).containers ?? [];
        for (const c of list) {
          const name = c.metadata?.name;
          const at = Math.floor(Number(c.createdAt ?? 'NaN') / 1e9);
          if (name !== undefined && Number.isFinite(at)) created.set(name, Math.max(created.get(name) ?? 0, at));
          if (name !== undefined && c.podSandboxId !== undefined) runningIn.set(name, (runningIn.get(name) ?? new Set()).add(c.podSandboxId));
        }
      } catch {
        // The runtime's list is a hint only: without it the hashes decide.
      }
    } else if (pods) sandboxes = parseSandboxes(pods[1]!);
    else if (ports)
      listening = new Set(
        (ports[1] ?? '')
          .trim()
          .split(/\s+/)
          .map((address) => Number(address.slice(address.lastIndexOf(':') + 1)))
          .filter((port) => Number.isInteger(port) && port > 0),
      );
    else if (line.trim() !== '') other.push(line.trim());
  }
  const localState = (component: string, want: string): ComponentState['local'] => {
    if (sandboxes === undefined || want === '') return undefined;
    const current = sandboxes.some((p) => p.component === component && p.hash === want && (runningIn.get(component)?.has(p.id) ?? false));
    const port = SERVING_PORTS[component];
    return { current, listening: port !== undefined && (listening?.has(port) ?? false) };
  };
  return {
    components: STATIC_POD_COMPONENTS.map((component) => {
      const local = localState(component, want.get(component) ?? '');
      return {
        component,
        want: want.get(component) ?? '',
        have: have.get(component)?.hash ?? '',
        ready: have.get(component)?.ready ?? false,
        ...(written.has(component) ? { manifestWritten: written.get(component)! } : {}),
        ...(created.has(component) ? { containerCreated: created.get(component)! } : {}),
        ...(local !== undefined ? { local } : {}),
      };
    }),
    detail: other.join(' ').slice(0, 300),
    ...(now !== undefined ? { now } : {}),
  };
}

/**
 * Components (of `only`) not yet running their manifest, Ready: "kube-apiserver (old pod)", ... A component
 * is current when its mirror pod carries the manifest's hash and is Ready, or when the host
 * shows it (a ready sandbox with that hash running its container, and it serves: its port
 * listens, or for the API server `apiAnswers`, its /readyz), whichever comes first.
 */
export function lagging(pods: StaticPods, apiAnswers = false, only: readonly StaticPodComponent[] = STATIC_POD_COMPONENTS): string[] {
  return pods.components.flatMap((c) => {
    if (!(only as readonly string[]).includes(c.component)) return [];
    if (c.want === '') return [`${c.component} (no manifest with kcluster.io/inputs-sha256)`];
    // The same hash, but the container predates its manifest: a hand edit that kept the
    // annotation, undone by this write; the kubelet has not restarted the pod yet.
    const predates = c.manifestWritten !== undefined && c.containerCreated !== undefined && c.containerCreated < c.manifestWritten;
    if (predates && pods.now !== undefined && pods.now - c.manifestWritten! < KUBELET_PICKUP_SECONDS)
      return [`${c.component} (its container predates its manifest: the kubelet has not restarted it yet)`];
    const serving = c.component === 'kube-apiserver' ? apiAnswers : (c.local?.listening ?? false);
    if (c.local?.current === true && serving) return [];
    if (c.have === '') return [`${c.component} (no mirror pod yet)`];
    if (c.have !== c.want) return [`${c.component} (the previous pod still runs)`];
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
printf 'sandboxes '; crictl pods --state ready --label tier=control-plane -o json 2>/dev/null | tr -d '\n'; echo
printf 'listening '; ss -Hltn 2>/dev/null | awk '{printf "%s ", $4}'; echo
${adminKubectl(5)} -n kube-system get pod ${podNames} -o 'jsonpath={range .items[*]}pod {.metadata.labels.component} {.metadata.annotations.kcluster\\.io/inputs-sha256} {range .status.conditions[?(@.type=="Ready")]}{.status}{end}{"\\n"}{end}' 2>&1 | tail -n 8; true`,
    parse: (stdout) => parseStaticPods(stdout),
    // The host's clock moves by itself: a plan file must not call the host changed for it.
    volatile: ['now'],
  };
}
