// Whether the cluster's own workloads run: each DaemonSet has a Ready, current pod on every
// node it should run on, each Deployment its Ready, current replicas. Read through the admin
// kubeconfig on a control plane: one `kubectl get` for the workloads, one for the DaemonSets'
// pods and revisions.
//
// A DaemonSet's pods on Nodes that are no inventory host do not hold the wait: a Node the
// inventory no longer has (a restored etcd snapshot brings back the Nodes of machines removed
// since, NotReady for good) would keep its DaemonSets short of Ready forever, and every apply
// would wait out its deadline and fail. Those pods are named instead (see `outside`).
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
  /** A DaemonSet's Nodes outside the inventory whose pod is not Ready and current (not waited for). */
  readonly outside?: readonly string[];
}

/** One of a DaemonSet's pods, as the second read lists it. */
export interface DaemonPod {
  readonly daemonSet: string;
  readonly node: string;
  readonly ready: boolean;
  /** Its controller-revision-hash is the DaemonSet's newest revision's. */
  readonly current: boolean;
  /** Being deleted (on a Node that is gone, it stays so). */
  readonly deleted: boolean;
}

/** What a DaemonSet is judged by besides its status: its pods, and the Nodes that are inventory hosts. */
export interface DaemonPods {
  readonly pods: readonly DaemonPod[];
  readonly inventoryNodes: readonly string[];
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

function counts(workload: Workload, s: NonNullable<K8sObject['status']>, replicas: number, daemon: DaemonPods | undefined) {
  if (workload.kind === 'deployment')
    return {
      want: replicas,
      ready: s.readyReplicas ?? 0,
      current: s.updatedReplicas ?? 0,
      good: Math.min(s.readyReplicas ?? 0, s.updatedReplicas ?? 0),
      outside: [],
    };
  if (daemon === undefined)
    return {
      want: s.desiredNumberScheduled ?? 0,
      ready: s.numberReady ?? 0,
      current: s.updatedNumberScheduled ?? 0,
      good: Math.min(s.numberReady ?? 0, s.updatedNumberScheduled ?? 0),
      outside: [],
    };
  // Per Node, from the pods: the status's counts are per Node too, but cannot leave out the Nodes
  // outside the inventory, nor tell a pod stuck in deletion on a dead Node from a Ready one.
  const live = daemon.pods.filter((p) => !p.deleted);
  const inside = (p: DaemonPod): boolean => daemon.inventoryNodes.includes(p.node);
  const nodesWhere = (pods: readonly DaemonPod[]): string[] => [...new Set(pods.map((p) => p.node))];
  const outsideNodes = nodesWhere(daemon.pods.filter((p) => !inside(p)));
  const outsideGood = nodesWhere(live.filter((p) => !inside(p) && p.ready && p.current));
  return {
    want: (s.desiredNumberScheduled ?? 0) - outsideNodes.length,
    ready: nodesWhere(live.filter((p) => inside(p) && p.ready)).length,
    current: nodesWhere(live.filter((p) => inside(p) && p.current)).length,
    good: nodesWhere(live.filter((p) => inside(p) && p.ready && p.current)).length,
    outside: outsideNodes.filter((n) => !outsideGood.includes(n)),
  };
}

/**
 * Pure: one object's status in, whether it is ready and why not. A DaemonSet with `daemon` is
 * judged on the inventory's Nodes only: each that should run its pod runs a Ready one of its
 * newest revision; Nodes outside the inventory whose pod is not so are named in `outside`.
 */
export function workloadState(workload: Workload, object: K8sObject | undefined, daemon?: DaemonPods): WorkloadState {
  if (object === undefined) return { workload, ready: false, detail: 'not found' };
  const s = object.status ?? {};
  const observed = (s.observedGeneration ?? 0) >= (object.metadata?.generation ?? 1);
  const { want, ready, current, good, outside } = counts(workload, s, object.spec?.replicas ?? 1, daemon);
  return {
    workload,
    ready: observed && want > 0 && good >= want,
    detail: `${ready}/${want} Ready, ${current}/${want} current${observed ? '' : ', change not yet seen by its controller'}`,
    ...(outside.length > 0 ? { outside } : {}),
  };
}

const POD_LIST_MARK = '--- daemonset pods';

// kind, owner, revision hash (pods) or revision number (ControllerRevisions), node, Ready, deleted
const POD_COLUMNS =
  '{range .items[*]}{.kind}{"\\t"}{.metadata.ownerReferences[0].name}{"\\t"}{.metadata.labels.controller-revision-hash}' +
  '{"\\t"}{.revision}{"\\t"}{.spec.nodeName}{"\\t"}{.status.conditions[?(@.type=="Ready")].status}{"\\t"}{.metadata.deletionTimestamp}{"\\n"}{end}';

/**
 * Pure: the DaemonSets' pods and ControllerRevisions (POD_COLUMNS lines) in; each pod with its
 * node, whether it is Ready, runs its DaemonSet's newest revision, is being deleted.
 */
export function parseDaemonPods(text: string): DaemonPod[] {
  const rows = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split('\t'));
  const newest = new Map<string, { revision: number; hash: string }>();
  for (const [kind, owner = '', hash = '', revision = ''] of rows) {
    if (kind !== 'ControllerRevision') continue;
    const seen = newest.get(owner);
    if (seen === undefined || Number(revision) > seen.revision) newest.set(owner, { revision: Number(revision), hash });
  }
  return rows
    .filter(([kind]) => kind === 'Pod')
    .map(([, owner = '', hash = '', , node = '', ready = '', deleted = '']) => ({
      daemonSet: owner,
      node,
      ready: ready === 'True',
      current: hash !== '' && newest.get(owner)?.hash === hash,
      deleted: deleted !== '',
    }));
}

/** `inventoryNodes`: the Nodes the DaemonSets are waited for on (every other Node's pods are named, not waited for). */
export function parseWorkloads(stdout: string, workloads: readonly Workload[], inventoryNodes: readonly string[]): WorkloadsReady {
  const reply = parseKubectlAnswer(stdout, 'the workload status');
  if (!reply.reachable) return reply;
  const lines = reply.text.split('\n');
  const mark = lines.indexOf(POD_LIST_MARK);
  const text = (mark < 0 ? lines : lines.slice(0, mark)).join('\n').trim();
  const pods = mark < 0 ? '' : lines.slice(mark + 1).join('\n');
  // kubectl answers a get of several objects with a List, and of one object with the object itself.
  const answer = (text === '' ? {} : JSON.parse(text)) as K8sObject & { items?: K8sObject[] };
  const items = answer.items ?? (answer.kind !== undefined ? [answer] : []);
  const daemonPods = parseDaemonPods(pods);
  return {
    reachable: true,
    states: workloads.map((w) =>
      workloadState(
        w,
        items.find((i) => i.kind?.toLowerCase() === w.kind && i.metadata?.name === w.name),
        w.kind === 'daemonset' ? { pods: daemonPods.filter((p) => p.daemonSet === w.name), inventoryNodes } : undefined,
      ),
    ),
  };
}

/** The label selectors that list the DaemonSets' pods and revisions: one per label key (`k8s-app in (a,b)`). */
export function daemonPodSelectors(workloads: readonly Workload[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const w of workloads.filter((x) => x.kind === 'daemonset')) {
    const [key = '', value = ''] = w.selector.split('=');
    byKey.set(key, [...(byKey.get(key) ?? []), value]);
  }
  return [...byKey].map(([key, values]) => `${key} in (${values.join(',')})`);
}

export function workloadsReady(namespace: string, workloads: readonly Workload[], inventoryNodes: readonly string[]): Fact<WorkloadsReady> {
  const refs = workloads.map((w) => `${w.kind}/${w.name}`);
  const kubectl = sh`${adminKubectl(10)} -n ${namespace}`;
  const podLists = sh`for selector in ${daemonPodSelectors(workloads)}; do ${kubectl} get pods,controllerrevisions -l "$selector" -o ${`jsonpath=${POD_COLUMNS}`} || exit 1; done`;
  return {
    key: `workloads:${namespace}:${refs.join(',')}`,
    become: true,
    // --ignore-not-found: a missing workload shows as "not found", not as an unreachable API.
    script: kubectlAnswerScript(sh`{ ${kubectl} get ${refs} --ignore-not-found -o json && echo ${POD_LIST_MARK} && ${podLists}; }`),
    parse: (stdout) => parseWorkloads(stdout, workloads, inventoryNodes),
  };
}
