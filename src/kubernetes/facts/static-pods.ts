// Do this control plane's static pods run the manifests now on disk? For etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler: the manifest's
// kcluster.io/inputs-sha256 (the sha256 of the manifest and of every file the component reads,
// see roles/control-plane), the running mirror pod's (read through the local API server with
// admin.conf), and whether the pod is Ready. Right after a manifest changes the previous pod
// still answers until the kubelet replaces it: comparing the two tells the restart happened.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { ADMIN_KUBECONFIG } from './api-ready.js';

export const STATIC_POD_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
const MANIFESTS = '/etc/kubernetes/manifests';

export interface ComponentState {
  readonly component: string;
  /** The manifest's kcluster.io/inputs-sha256 ("" when the manifest or annotation is missing). */
  readonly want: string;
  /** The running mirror pod's ("" when there is no mirror pod or the API did not answer). */
  readonly have: string;
  readonly ready: boolean;
}

export interface StaticPods {
  readonly components: readonly ComponentState[];
  /** What the API said when it could not list the pods (empty otherwise). */
  readonly detail: string;
}

/** Pure: the fact's output in ("manifest C HASH" lines, then "pod C HASH READY" lines or the API's error). */
export function parseStaticPods(stdout: string): StaticPods {
  const want = new Map<string, string>();
  const have = new Map<string, { hash: string; ready: boolean }>();
  const other: string[] = [];
  for (const line of stdout.split('\n')) {
    const manifest = /^manifest (\S+) (\S+)$/.exec(line);
    const pod = /^pod (\S+) (\S*) ?(\S*)$/.exec(line);
    if (manifest) want.set(manifest[1]!, manifest[2] === '-' ? '' : manifest[2]!);
    else if (pod) have.set(pod[1]!, { hash: pod[2]!, ready: pod[3] === 'True' });
    else if (line.trim() !== '') other.push(line.trim());
  }
  return {
    components: STATIC_POD_COMPONENTS.map((component) => ({ component, want: want.get(component) ?? '', have: have.get(component)?.hash ?? '', ready: have.get(component)?.ready ?? false })),
    detail: other.join(' ').slice(0, 300),
  };
}

/** Components not yet running their manifest, Ready: "kube-apiserver (old pod)", ... */
export function lagging(pods: StaticPods): string[] {
  return pods.components.flatMap((c) => {
    if (c.want === '') return [`${c.component} (no manifest with kcluster.io/inputs-sha256)`];
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
    script: sh`for c in ${[...STATIC_POD_COMPONENTS]}; do want=$(sed -n 's/^[[:space:]]*kcluster\\.io\\/inputs-sha256:[[:space:]]*//p' ${MANIFESTS}/"$c".yaml 2>/dev/null | head -n 1); echo "manifest $c \${want:--}"; done
/usr/local/bin/kubectl --kubeconfig=${ADMIN_KUBECONFIG} --request-timeout=5s -n kube-system get pod ${podNames} -o 'jsonpath={range .items[*]}pod {.metadata.labels.component} {.metadata.annotations.kcluster\\.io/inputs-sha256} {range .status.conditions[?(@.type=="Ready")]}{.status}{end}{"\\n"}{end}' 2>&1 | tail -n 8; true`,
    parse: (stdout) => parseStaticPods(stdout),
  };
}
