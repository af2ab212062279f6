// The cluster's last play: what kcluster installed actually runs. kube-proxy and the pod
// network have a Ready, current pod on every inventory host's Node (not on a Node outside the
// inventory: see workloads-ready.ts); only then is CoreDNS applied (addon-task.ts) and waited
// for until its replicas are Ready, before `apply` reports success (a flannel crash-looping on
// a host without a route to the Service range once passed as done). CoreDNS comes last because
// it reaches the API server through the kubernetes Service: a replica started on a node before
// kube-proxy has written that Service's rules hangs in its first call until the client's 30 s
// dial timeout, which would be most of a fresh install's wait
// (figures: bench/results/2026-11-28-figures-from-code-comments.md).
// On a converged cluster each wait is one read. When the deadline passes, the run fails with
// the pods that are not Ready and their last log lines. Then each Node gets its role label
// (node-roles.ts) and the operator's labels and taints (node-metadata.ts).
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import { READY_TIMEOUT_VAR, readyTimeoutMs } from '../../src/kubernetes/cluster/ready-timeout.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { coreDnsAddonTask } from './addon-task.js';
import { workloadsReady, type Workload, type WorkloadState, type WorkloadsReady } from '../../src/kubernetes/facts/workloads-ready.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { clusterMembersTask } from './cluster-members.js';
import { nodeRolesTask } from './node-roles.js';
import { nodeMetadataTask } from './node-metadata.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

/** On a slow (emulated) node images start slowly; a healthy cluster needs a small part of this (figures: bench/results/2026-11-28-figures-from-code-comments.md). */
export const ADDONS_READY_TIMEOUT_MS = 600_000;

/** What runs on every node: kube-proxy, the pod network when it is kcluster's, and the
 * NetworkPolicy agent when on (a policy is enforced on a node only once it runs there). */
export function nodeWorkloads(inputs: Pick<ClusterInputs, 'inventory'>): Workload[] {
  const flannel = inputs.inventory.cluster.cni === 'flannel';
  return [
    { kind: 'daemonset', name: 'kube-proxy', selector: 'k8s-app=kube-proxy' },
    ...(flannel ? [{ kind: 'daemonset', name: 'kube-flannel', selector: 'k8s-app=flannel' } as const] : []),
    ...(inputs.inventory.cluster.networkPolicy.enabled
      ? [{ kind: 'daemonset', name: 'kube-network-policies', selector: 'k8s-app=kube-network-policies' } as const]
      : []),
  ];
}

/** Without a pod network from kcluster, CoreDNS waits for the operator's CNI: not ours to judge. */
export function dnsWorkloads(inputs: Pick<ClusterInputs, 'inventory'>): Workload[] {
  return inputs.inventory.cluster.cni === 'flannel' ? [{ kind: 'deployment', name: 'coredns', selector: 'k8s-app=kube-dns' }] : [];
}

const notReady = (states: readonly WorkloadState[]): WorkloadState[] => states.filter((s) => !s.ready);
// A Node outside the inventory is named here only: the 'etcd members and Nodes match the
// inventory' task warns of it, with the command that removes it.
const describe = (states: readonly WorkloadState[]): string =>
  states.map((s) => `${s.workload.name} ${s.detail}${s.outside ? ` (not waited for on ${s.outside.join(', ')}: no inventory host)` : ''}`).join(', ');

/** `inventoryNodes`: the Nodes DaemonSets are waited for on (the inventory's hosts). */
export function workloadsRunning(
  name: string,
  workloads: readonly Workload[],
  inventoryNodes: readonly string[],
): Task<{ workloads: Fact<WorkloadsReady> }, null> {
  const fact = workloadsReady('kube-system', workloads, inventoryNodes);
  return {
    name,
    tags: ['addons'],
    facts: () => ({ workloads: fact }),
    plan: (facts) => {
      if (!facts.workloads.reachable) return { kind: 'wait', summary: `wait for the API server to answer (${facts.workloads.detail})`, payload: null };
      const waiting = notReady(facts.workloads.states);
      return waiting.length === 0 ? noChange(describe(facts.workloads.states)) : { kind: 'wait', summary: `wait for ${describe(waiting)}`, payload: null };
    },
    apply: async (_change, ctx) => {
      const timeoutMs = readyTimeoutMs(ctx.vars, ADDONS_READY_TIMEOUT_MS, ctx.host.name);
      const outcome = await pollUntil<WorkloadsReady>({
        timeoutMs,
        // One kubectl read a second: this is the install's last wait, where each second of
        // interval is a second of apply.
        intervalMs: 1000,
        signal: ctx.signal,
        probe: async () => (await readFacts(ctx.connection, [fact] as const, { label: 'read the addons', timeoutMs: 30_000 }))[0],
        done: (w) => w.reachable && notReady(w.states).length === 0,
        progress: {
          describe: (w) =>
            w === undefined ? 'no answer from the API server' : w.reachable ? describe(notReady(w.states)) : `the API server does not answer (${w.detail})`,
          report: (line) => ctx.progress(line),
        },
      });
      if (outcome.reached) return;
      if (outcome.interrupted) throw new Error('interrupted while waiting for the addons to run');
      const last = outcome.last;
      const waiting = last?.reachable ? notReady(last.states) : [];
      const kubectl = sh`${adminKubectl(20)} -n kube-system`;
      const report = await ctx.connection.exec(
        sh`for sel in ${waiting.map((s) => s.workload.selector)}; do echo "--- pods $sel"; ${kubectl} get pods -l "$sel" -o wide 2>&1; echo "--- last log lines"; ${kubectl} logs -l "$sel" --all-containers --prefix --tail 10 2>&1 | tail -n 30; done`,
        { become: true, label: 'addon pods and logs', timeoutMs: 60_000 },
      );
      const what =
        last === undefined ? 'no answer from the API server' : last.reachable ? describe(waiting) : `the API server does not answer (${last.detail})`;
      throw new Error(`the addons do not run after ${timeoutMs / 1000} s (var ${READY_TIMEOUT_VAR} sets how long to wait): ${what}\n${report.stdout.trim()}`);
    },
    verify: true,
  };
}

export function addonsRunningRole(inputs: ClusterInputs): Role {
  const dns = dnsWorkloads(inputs);
  const nodes = inputs.inventory.hosts.map((h) => h.name);
  return {
    name: 'addons-running',
    tags: ['addons'],
    tasks: [
      workloadsRunning('kube-proxy and the pod network running', nodeWorkloads(inputs), nodes),
      // Applying it changes what the CoreDNS wait reads: read it again after.
      { ...coreDnsAddonTask(inputs), invalidates: ['addon-record', 'workloads:*'] },
      ...(dns.length > 0 ? [workloadsRunning('CoreDNS running', dns, nodes)] : []),
      nodeRolesTask(inputs),
      nodeMetadataTask(inputs),
      clusterMembersTask(inputs),
    ],
  };
}
