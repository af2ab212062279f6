// The control plane's waits: the last task waits until the API server is ready (and, on a
// running cluster, every static pod runs its current manifest); on a running cluster one more
// wait sits between the API server's manifest and the controller-manager's (kubeadm's order).
// On a running cluster whose control plane does not come back, put back the last good
// manifests; name the likely cause.
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { ApplyContext, Task, Undo } from '../../src/orchestrator/engine/types.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { pollUntil, type PollOutcome } from '../../src/orchestrator/engine/poll-until.js';
import { READY_TIMEOUT_VAR, readyTimeoutMs } from '../../src/kubernetes/cluster/ready-timeout.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import { apiReady, type ApiReadiness } from '../../src/kubernetes/facts/api-ready.js';
import { lagging, STATIC_POD_COMPONENTS, staticPods, type StaticPodComponent, type StaticPods } from '../../src/kubernetes/facts/static-pods.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import {
  keepLastGoodManifests,
  LAST_GOOD_MANIFESTS_DIR,
  lastGoodManifests,
  restoreLastGoodManifests,
} from '../../src/kubernetes/cluster/last-good-manifests.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';

const READY_TIMEOUT_MS = 300_000;
/** What a wait awaits before any probe answered. */
const NO_ANSWER = 'a probe that answers within 30 s';

/**
 * The last task: the API server answers /readyz and, on a running cluster, every static pod
 * runs the manifest now on disk and is Ready (see src/kubernetes/facts/static-pods.ts: right after a
 * manifest changes, the previous pod still answers /readyz until the kubelet replaces it).
 * Both are read in the role's one fact command, so a converged control plane costs no extra
 * round trip. A fresh install waits for /readyz only: there is no previous pod, and the
 * kubelet creates mirror pods it could not create before the API server was up only at its
 * next periodic sync (up to a minute later), so waiting for them would make every install
 * from empty hosts up to a minute longer (figures: bench/results/2026-11-28-figures-from-code-comments.md).
 */
const pending = (api: ApiReadiness, pods: StaticPods | undefined, scope: WaitScope): string[] => [
  ...(api.ready ? [] : [`/readyz (${api.detail})`]),
  ...(pods ? lagging(pods, api.ready, scope.components) : []),
];

/** Which static pods a wait requires to run their current manifest (none: /readyz only, a fresh install). */
interface WaitScope {
  readonly components: readonly StaticPodComponent[];
  readonly name: string;
  readonly done: string;
}

const FRESH: WaitScope = { components: [], name: 'API server ready', done: 'the API server answers /readyz' };
const EVERY_STATIC_POD: WaitScope = {
  components: STATIC_POD_COMPONENTS,
  name: 'API server ready, static pods current',
  done: 'the API server answers /readyz; etcd, kube-apiserver, kube-controller-manager and kube-scheduler run their current manifests and are Ready',
};
/**
 * kubeadm's order on a running cluster: the API server (and its etcd member) back on their
 * current manifests before the controller-manager's and the scheduler's are written, so those
 * two never start against an API server that is restarting (they exit and the kubelet backs
 * them off); see roles/control-plane/README.md.
 */
const API_SERVER_FIRST: WaitScope = {
  components: ['etcd', 'kube-apiserver'],
  name: 'API server current, before the controller-manager and scheduler',
  done: 'etcd and kube-apiserver run their current manifests and are Ready, and the API server answers /readyz',
};

/** Polls the API server's readiness (and the static pods, on a running cluster) until ready or the host's timeout; logs each change of what is awaited. */
function controlPlaneReadiness(ctx: ApplyContext, scope: WaitScope): { readonly timeoutMs: number; readonly wait: () => Promise<PollOutcome<string[]>> } {
  const pods = staticPods(ctx.host.name);
  const timeoutMs = readyTimeoutMs(ctx.vars, READY_TIMEOUT_MS, ctx.host.name);
  // The debug log gets what is still awaited each time it changes: a slow wait names its component.
  let lastWaiting = '';
  const logWaiting = (waiting: readonly string[]) => {
    const text = waiting.length === 0 ? 'nothing: ready' : waiting.join(', ');
    if (text !== lastWaiting) ctx.log(`control plane: waiting for ${text}`);
    lastWaiting = text;
  };
  const wait = () =>
    pollUntil({
      timeoutMs,
      intervalMs: 2000,
      signal: ctx.signal,
      probe: async () => {
        const withPods = scope.components.length > 0;
        const [api, current] = await readFacts(ctx.connection, withPods ? ([apiReady, pods] as const) : ([apiReady] as const), {
          label: withPods ? 'probe /readyz and the static pods' : 'probe /readyz',
          timeoutMs: 30_000,
        });
        const waiting = pending(api, current, scope);
        logWaiting(waiting);
        return waiting;
      },
      done: (waiting) => waiting.length === 0,
      progress: { describe: (waiting) => (waiting ?? [NO_ANSWER]).join(', '), report: (line) => ctx.progress(line) },
    });
  return { timeoutMs, wait };
}

/** The control plane's last wait: /readyz, and on a running cluster every static pod current. */
export function waitForControlPlane(staticPodsCurrent: boolean): Task<{ api: typeof apiReady; pods?: Fact<StaticPods> }, { readonly detail: string }> {
  return readinessWait(staticPodsCurrent ? EVERY_STATIC_POD : FRESH, true);
}

/** On a running cluster, between the API server's manifest and the controller-manager's (API_SERVER_FIRST). */
export function waitForApiServerFirst(): Task<{ api: typeof apiReady; pods?: Fact<StaticPods> }, { readonly detail: string }> {
  return readinessWait(API_SERVER_FIRST, false);
}

/** A wait for `scope`; `last` keeps the manifests that run as the last good ones once reached (only once all four are current). */
function readinessWait(scope: WaitScope, last: boolean): Task<{ api: typeof apiReady; pods?: Fact<StaticPods> }, { readonly detail: string }> {
  const withPods = scope.components.length > 0;
  return {
    name: scope.name,
    tags: ['control-plane'],
    facts: (ctx) => (withPods ? { api: apiReady, pods: staticPods(ctx.host.name) } : { api: apiReady }),
    plan: (facts) => {
      const waiting = pending(facts.api, facts.pods, scope);
      return waiting.length === 0 ? noChange(scope.done) : { kind: 'wait', summary: `wait for ${waiting.join(', ')}`, payload: { detail: waiting.join(', ') } };
    },
    apply: async (_change, ctx) => {
      const readiness = controlPlaneReadiness(ctx, scope);
      const outcome = await readiness.wait();
      if (outcome.reached) {
        if (!last) return;
        await execChecked(ctx.connection, keepLastGoodManifests, { become: true, label: 'keep the manifests that run as the last good ones' });
        return;
      }
      if (outcome.interrupted) throw new Error('interrupted while waiting for the control plane');
      const waiting = outcome.last ?? [NO_ANSWER];
      const logs = await ctx.connection.exec(
        sh`for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do id=$(crictl ps -a --name "$c" -q 2>/dev/null | head -n 1); echo "--- $c (container \${id:-none})"; [ -n "$id" ] && crictl logs --tail 15 "$id" 2>&1; done; echo "--- kubelet"; journalctl -u kubelet --no-pager -n 10 2>&1`,
        { become: true, label: 'control-plane logs' },
      );
      throw new Error(
        `the control plane is not ready after ${readiness.timeoutMs / 1000} s (var ${READY_TIMEOUT_VAR} sets how long to wait), still waiting for ${waiting.join(', ')}${outcome.slowProbes > 0 ? ` (${outcome.slowProbes} probe(s) ran past 30 s: the host is slow or overloaded)` : ''}. ${likelyCause(logs.stdout)}\nLast log lines:\n${logs.stdout.trim()}`,
      );
    },
    verify: true,
  };
}

/**
 * The control-plane role's undo on a running cluster (an engine contract: see Undo): when a task
 * of the role fails on a host, the manifests that last ran are put back where they differ (the
 * change is undone on this host, and the run stops before the next control plane) and the
 * components are waited for again. Says what happened, for the error; nothing when no manifest
 * differs (the failure came before any manifest changed).
 */
export function lastGoodManifestsUndo(): Undo {
  return {
    name: 'put back the last good manifests',
    run: async (ctx) => {
      const restored = await execChecked(ctx.connection, restoreLastGoodManifests, { become: true, label: 'put back the last good manifests' });
      const files = restored.stdout.split('\n').filter((line) => line.endsWith('.yaml'));
      if (files.length === 0) return '';
      const back = await controlPlaneReadiness(ctx, EVERY_STATIC_POD).wait();
      const what = `the last good ${files.join(', ')} (from ${LAST_GOOD_MANIFESTS_DIR}) ${files.length === 1 ? 'is' : 'are'} back`;
      return back.reached
        ? `The change is undone on this host: ${what} and the control plane is ready again; no other control plane was touched. Fix what the log lines above show, then apply again.`
        : `${what[0]!.toUpperCase()}${what.slice(1)}, but the control plane is still not ready: the cause is probably not the change.`;
    },
  };
}

/** Running clusters installed before the last good manifests were kept get their copy before any manifest changes. */
export function lastGoodManifestsKeptTask(): Task<{ kept: typeof lastGoodManifests }, null> {
  return {
    name: 'last good manifests kept',
    tags: ['control-plane'],
    facts: () => ({ kept: lastGoodManifests }),
    plan: ({ kept }) => {
      const unkept = kept.present.filter((f) => !kept.kept.includes(f));
      if (unkept.length > 0)
        return {
          kind: 'create',
          summary: `keep the manifests that run now in ${LAST_GOOD_MANIFESTS_DIR}, to put back if a change keeps a component from starting`,
          payload: null,
        };
      // A control plane joining a running cluster has none yet: kept once its wait succeeds.
      return noChange(
        kept.present.length === 0
          ? 'no control-plane manifest yet: kept once the control plane is ready'
          : `${LAST_GOOD_MANIFESTS_DIR} holds the manifests that last ran`,
      );
    },
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, keepLastGoodManifests, { become: true, label: 'keep the last good manifests' });
    },
    invalidates: ['last-good-manifests'],
  };
}

/** The usual suspects, recognised in the components' logs. */
export function likelyCause(logs: string): string {
  if (/failCgroupV1|cgroup v1/.test(logs)) return 'Likely cause: the kubelet refuses cgroup v1 (see the kubelet role README).';
  if (/x509|certificate/.test(logs))
    return 'Likely cause: a certificate problem (wrong CA or missing SAN): compare the state folder PKI with /etc/kubernetes/pki.';
  if (/connection refused.*2379|etcdserver|context deadline exceeded/.test(logs))
    return 'Likely cause: etcd is not serving (check its log above, ports 2379/2380, and the data dir /var/lib/etcd).';
  if (/ErrImageNeverPull|ImagePull|not found.*image/.test(logs))
    return 'Likely cause: a control-plane image is missing from the runtime (rerun the images role).';
  if (/address already in use/.test(logs)) return 'Likely cause: a port is taken by another process (preflight checks 6443, 2379, 2380, 10250, 10257, 10259).';
  return 'Look at the log lines below for the first error.';
}
