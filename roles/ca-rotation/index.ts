// The ca-rotation role, used by `kcluster certs rotate-ca` between trusting the new CA and
// reissuing from it (playbooks/certs-rotate-ca.ts): on the first control plane, the workloads
// whose pods read the cluster CA before its two-CA bundle was published (kube-root-ca.crt) are
// rolled (their pod template annotated, as `kubectl rollout restart` does), then waited for
// until none of their pods started before that moment and every one is Ready. kcluster's own
// addons always; the operator's workloads only those the command was told to roll. The
// annotation's value is the rotation's start, so a rerun after an interruption rolls nothing
// twice, and a pod that carries it counts as new whatever its whole-second start time says.
// See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { adminApi } from '../../src/kubernetes/cluster/admin-api.js';
import { READY_TIMEOUT_VAR, readyTimeoutMs } from '../../src/kubernetes/cluster/ready-timeout.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';
import { kubectlAnswerScript, parseKubectlAnswer } from '../../src/kubernetes/facts/kubectl-answer.js';
import { rotationRollMark, type CaRotation } from '../../src/kubernetes/pki/ca-rotation.js';
import { describeWorkload, unreadyPodsOf, workloadsWithStaleTrust, type PodList, type WorkloadRef } from '../../src/kubernetes/pki/stale-trust-workloads.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';

const ROLL_TIMEOUT_MS = 600_000;

type Pods = { readonly reachable: true; readonly list: PodList } | { readonly reachable: false; readonly detail: string };

const allPods: Fact<Pods> = {
  key: 'pods:all-namespaces',
  become: true,
  script: kubectlAnswerScript(sh`${adminKubectl(20)} get pods --all-namespaces -o json`),
  parse: (stdout) => {
    const answer = parseKubectlAnswer(stdout, 'the pod list');
    return answer.reachable ? { reachable: true, list: JSON.parse(answer.text) as PodList } : answer;
  },
};

const RESOURCES: Readonly<Record<Exclude<WorkloadRef['kind'], 'Pod'>, string>> = {
  Deployment: 'deployments',
  DaemonSet: 'daemonsets',
  StatefulSet: 'statefulsets',
};

export interface RestartPlan {
  readonly stale: readonly WorkloadRef[];
}

/**
 * Roll `selected` workloads (kcluster's and those the operator named) that still run a pod
 * started before the rotation's trust bundle was published; wait until they are all rolled.
 */
export function restartStaleTrustTask(
  inputs: ClusterInputs,
  rotation: CaRotation,
  publishedAt: Date,
  selected: (w: WorkloadRef) => boolean,
): Task<{ pods: Fact<Pods> }, RestartPlan> {
  const mark = rotationRollMark(rotation);
  const staleOf = (list: PodList): WorkloadRef[] => workloadsWithStaleTrust(list, publishedAt, mark).filter((w) => w.kind !== 'Pod' && selected(w));
  const pending = (pods: Pods, rolled: readonly WorkloadRef[]): string | undefined => {
    if (!pods.reachable) return `the API server does not answer (${pods.detail})`;
    const stale = staleOf(pods.list);
    if (stale.length > 0) return `pods from before ${publishedAt.toISOString()}: ${stale.map(describeWorkload).join(', ')}`;
    const unready = unreadyPodsOf(pods.list, rolled);
    return unready.length > 0 ? `not Ready yet: ${unready.join(', ')}` : undefined;
  };
  return {
    name: 'pods restarted to read both CAs',
    tags: ['ca-rotation'],
    facts: () => ({ pods: allPods }),
    plan: (facts) => {
      if (!facts.pods.reachable) return { kind: 'wait', summary: `wait for the API server to answer (${facts.pods.detail})`, payload: { stale: [] } };
      const stale = staleOf(facts.pods.list);
      if (stale.length === 0) return noChange(`no pod of the selected workloads started before ${publishedAt.toISOString()}`);
      return { kind: 'run', summary: `roll ${stale.map(describeWorkload).join(', ')} and wait until every pod is new and Ready`, payload: { stale } };
    },
    apply: async (change, ctx) => {
      const api = adminApi(inputs);
      const annotation = { spec: { template: { metadata: { annotations: { [mark.annotation]: mark.value } } } } };
      for (const w of change.payload.stale) {
        if (w.kind === 'Pod') continue;
        await api.patch(
          `/apis/apps/v1/namespaces/${encodeURIComponent(w.namespace)}/${RESOURCES[w.kind]}/${encodeURIComponent(w.name)}`,
          annotation,
          'strategic',
        );
        ctx.log(`rolling ${describeWorkload(w)}`);
      }
      const timeoutMs = readyTimeoutMs(ctx.vars, ROLL_TIMEOUT_MS, ctx.host.name);
      const awaited = (last: Pods | undefined): string =>
        last === undefined ? 'no answer from the API server' : (pending(last, change.payload.stale) ?? 'unknown');
      const outcome = await pollUntil<Pods>({
        timeoutMs,
        intervalMs: 3000,
        signal: ctx.signal,
        probe: async () => (await readFacts(ctx.connection, [allPods] as const, { label: 'read the pods', timeoutMs: 30_000 }))[0],
        done: (pods) => pending(pods, change.payload.stale) === undefined,
        progress: { describe: awaited, report: (line) => ctx.progress(line) },
      });
      if (outcome.reached) return;
      if (outcome.interrupted) throw new Error('interrupted while waiting for the rolled workloads');
      const why = awaited(outcome.last);
      throw new Error(
        `the rolled workloads are not all new and Ready after ${timeoutMs / 1000} s (var ${READY_TIMEOUT_VAR} sets how long to wait): ${why}. The old CA still signs everything: run the same command again to go on`,
      );
    },
    verify: true,
  };
}

export function caRotationPodsRole(inputs: ClusterInputs, rotation: CaRotation, publishedAt: Date, selected: (w: WorkloadRef) => boolean): Role {
  return { name: 'ca-rotation', tags: ['ca-rotation'], tasks: [restartStaleTrustTask(inputs, rotation, publishedAt, selected)] };
}
