// Whether the cluster's own workloads run: each DaemonSet has a Ready, current pod on every
// node it should run on, each Deployment its Ready, current replicas. Read through the admin
// kubeconfig on a control plane, one `kubectl get` for all of them.
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { adminKubectl } from './admin-kubectl.js';
import { kubectlAnswerScript, parseKubectlAnswer } from './kubectl-answer.js';

export interface Workload {
  readonly kind: 'daemonset' | 'deployment';
  readonly name: string;
  /** The pods' label selector, to name the pods that are not Ready. */
  readonly selector: string;
}

export interface WorkloadState {
  readonly workload: Workload;
  readonly ready: boolean;
  /** e.g. "2/3 Ready, 3/3 current" or "not found". */
  readonly detail: string;
}

export type WorkloadsReady = { readonly reachable: true; readonly states: readonly WorkloadState[] } | { readonly reachable: false; readonly detail: string };

interface K8sObject {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly generation?: number };
  readonly spec?: { readonly replicas?: number };
  readonly status?: {
    readonly observedGeneration?: number;
    readonly desiredNumberScheduled?: number;
    readonly numberReady?: number;
    readonly updatedNumberScheduled?: number;
    readonly readyReplicas?: number;
    readonly updatedReplicas?: number;
  };
}

/** Pure: one object's status in, whether it is ready and why not. */
export function workloadState(workload: Workload, object: K8sObject | undefined): WorkloadState {
  if (object === undefined) return { workload, ready: false, detail: 'not found' };
  const s = object.status ?? {};
  const observed = (s.observedGeneration ?? 0) >= (object.metadata?.generation ?? 1);
  const [want, ready, current] =
    workload.kind === 'daemonset'
      ? [s.desiredNumberScheduled ?? 0, s.numberReady ?? 0, s.updatedNumberScheduled ?? 0]
      : [object.spec?.replicas ?? 1, s.readyReplicas ?? 0, s.updatedReplicas ?? 0];
  const ok = observed && want > 0 && ready >= want && current >= want;
  return { workload, ready: ok, detail: `${ready}/${want} Ready, ${current}/${want} current${observed ? '' : ', change not yet seen by its controller'}` };
}

export function parseWorkloads(stdout: string, workloads: readonly Workload[]): WorkloadsReady {
  const reply = parseKubectlAnswer(stdout, 'the workload status');
  if (!reply.reachable) return reply;
  const text = reply.text.trim();
  // kubectl answers a get of several objects with a List, and of one object with the object itself.
  const answer = (text === '' ? {} : JSON.parse(text)) as K8sObject & { items?: K8sObject[] };
  const items = answer.items ?? (answer.kind !== undefined ? [answer] : []);
  return {
    reachable: true,
    states: workloads.map((w) =>
      workloadState(
        w,
        items.find((i) => i.kind?.toLowerCase() === w.kind && i.metadata?.name === w.name),
      ),
    ),
  };
}

export function workloadsReady(namespace: string, workloads: readonly Workload[]): Fact<WorkloadsReady> {
  const refs = workloads.map((w) => `${w.kind}/${w.name}`);
  return {
    key: `workloads:${namespace}:${refs.join(',')}`,
    become: true,
    // --ignore-not-found: a missing workload shows as "not found", not as an unreachable API.
    script: kubectlAnswerScript(sh`${adminKubectl(10)} -n ${namespace} get ${refs} --ignore-not-found -o json`),
    parse: (stdout) => parseWorkloads(stdout, workloads),
  };
}
