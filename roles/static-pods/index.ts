// The static-pods role, used on each control plane by `kcluster certs renew` and `kcluster
// upgrade` after the control-plane and kubelet roles: waits until etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler run the manifests now on disk (the mirror pod's
// kcluster.io/inputs-sha256 equals the manifest's, so the pod restarted with the new image,
// flags or certificates) and are Ready, before the next control plane is touched. The API
// server answering /readyz alone is not enough: right after a manifest changes, the old pod
// still answers until the kubelet replaces it. See README.md beside this file.
import { noChange } from '../../src/engine/change.js';
import type { Fact } from '../../src/engine/fact.js';
import type { Role, Task } from '../../src/engine/types.js';
import { ADMIN_KUBECONFIG } from '../../src/facts/api-ready.js';
import { sh } from '../../src/ssh/quote.js';

export const STATIC_POD_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
const MANIFESTS = '/etc/kubernetes/manifests';
const WAIT_TIMEOUT_MS = 300_000;

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

function waitForStaticPods(): Task<{ pods: Fact<StaticPods> }, null> {
  return {
    name: 'static pods run their current manifests',
    tags: ['control-plane'],
    facts: (ctx) => ({ pods: staticPods(ctx.host.name) }),
    plan: (facts) => {
      const behind = lagging(facts.pods);
      if (behind.length === 0) return noChange(`${STATIC_POD_COMPONENTS.join(', ')} run their current manifests and are Ready`);
      return { kind: 'run', summary: `wait for ${behind.join(', ')}${facts.pods.detail ? ` (API: ${facts.pods.detail})` : ''}`, payload: null };
    },
    apply: async (_change, ctx) => {
      const fact = staticPods(ctx.host.name);
      const deadline = Date.now() + WAIT_TIMEOUT_MS;
      let last: StaticPods | undefined;
      while (Date.now() < deadline) {
        if (ctx.signal.aborted) throw new Error('interrupted while waiting for the static pods');
        const result = await ctx.connection.exec(fact.script, { become: true, label: 'static pods', timeoutMs: 30_000 });
        last = parseStaticPods(result.stdout);
        if (lagging(last).length === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      throw new Error(
        `${ctx.host.name}: after ${WAIT_TIMEOUT_MS / 1000} s still waiting for ${last ? lagging(last).join(', ') : 'the static pods'}${last?.detail ? ` (API: ${last.detail})` : ''}: ` +
          `look at crictl ps -a and journalctl -u kubelet on it; the next control plane was not touched`,
      );
    },
  };
}

export function staticPodsCurrentRole(): Role {
  return { name: 'static-pods-current', tags: ['control-plane'], tasks: [waitForStaticPods()] };
}
