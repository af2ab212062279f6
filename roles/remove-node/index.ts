// The remove-node roles, run on a control plane that stays (the "operator") by
// `kcluster remove-node`, around the reset role on the node itself:
// - takeOutRole: for a control plane, check that the etcd members left keep a healthy majority
//   (the plan fails otherwise, before anything changes); cordon and drain the node through the
//   API (PodDisruptionBudgets respected); for a control plane, remove its etcd member;
//   --unreachable: no drain, but the out-of-service taint, which takes its pods off it;
// - deleteNodeRole (after the reset, or with --unreachable): delete the Node object, then
//   force-delete the pods still bound to it.
// Every step is a task: --check shows what would happen, -o json streams it, a rerun after an
// interruption goes on where it stopped. See README.md beside this file.
import { etcdMembership } from '../../src/kubernetes/etcd/etcd-membership.js';
import { evenMembersProblem, quorumProblem, removeEtcdMember } from '../../src/kubernetes/etcd/etcd-members.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { nodeDrainState } from '../../src/kubernetes/facts/node-drain-state.js';
import type { ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { cordon, drain } from '../../src/kubernetes/kube/drain.js';
import { deleteNodeAndPodsTask } from './delete-node-and-pods.js';
import { outOfServiceTask } from './out-of-service.js';

export interface RemoveNodeTarget {
  /** The node (inventory host name) being removed. */
  readonly node: string;
  readonly controlPlane: boolean;
  readonly drainTimeoutMs: number;
  /** Its host is gone or cannot be reached: no drain (its kubelet would never confirm a pod gone), no reset. */
  readonly unreachable?: boolean;
  /** Leave etcd an even number of members, knowingly. */
  readonly allowEven?: boolean;
  /** The API through a control plane that stays. */
  readonly api: () => ApiClient;
}

function quorumCheck(target: RemoveNodeTarget): Task<{ members: ReturnType<typeof etcdMembership> }, null> {
  const node = target.node;
  return {
    name: `etcd keeps its quorum without ${node}`,
    tags: ['remove-node', 'etcd'],
    facts: () => ({ members: etcdMembership() }),
    plan: ({ members }) => {
      const problem = quorumProblem(members, node) ?? (target.allowEven === true ? undefined : evenMembersProblem(members, node));
      if (problem) throw new Error(`remove-node ${node} refused: ${problem}; nothing was changed`);
      const left = members.filter((m) => m.name !== node);
      return noChange(
        members.length === left.length
          ? `${node} is not an etcd member`
          : `${left.filter((m) => m.healthy).length} of ${left.length} remaining members healthy`,
      );
    },
    apply: async () => undefined,
  };
}

function drainTask(target: RemoveNodeTarget): Task<{ state: ReturnType<typeof nodeDrainState> }, null> {
  return {
    name: `cordon and drain ${target.node}`,
    tags: ['remove-node', 'drain'],
    facts: () => ({ state: nodeDrainState(target.node) }),
    plan: ({ state }) => {
      if (!state.exists) return noChange(`no Node ${target.node} in the cluster: nothing to drain`);
      if (state.unschedulable && state.evictable.length === 0) return noChange(`${target.node} is cordoned and has no pod to evict`);
      const pods =
        state.evictable.length === 0
          ? 'no pod to evict'
          : `${state.evictable.length} pods to evict: ${state.evictable.slice(0, 5).join(', ')}${state.evictable.length > 5 ? ', ...' : ''}`;
      return {
        kind: 'run',
        summary: `cordon and drain ${target.node} (${pods}; PodDisruptionBudgets respected, ${target.drainTimeoutMs / 1000} s at most)`,
        payload: null,
      };
    },
    apply: async (_change, ctx) => {
      const api = target.api();
      await cordon(api, target.node);
      await drain(
        api,
        target.node,
        target.drainTimeoutMs,
        (line) => ctx.log(line),
        (line) => ctx.progress(line),
      );
    },
  };
}

function removeMember(node: string): Task<{ members: ReturnType<typeof etcdMembership> }, string> {
  return {
    name: `remove the etcd member of ${node}`,
    tags: ['remove-node', 'etcd'],
    facts: () => ({ members: etcdMembership() }),
    plan: ({ members }) => {
      const member = members.find((m) => m.name === node);
      if (!member) return noChange(`${node} is not an etcd member`);
      return { kind: 'delete', summary: `remove etcd member ${member.id} (${node}); ${members.length - 1} members left`, payload: member.id };
    },
    apply: async (change, ctx) => removeEtcdMember(ctx.connection, change.payload),
  };
}

export function takeOutRole(target: RemoveNodeTarget): Role {
  // A node whose host is gone cannot be drained (its kubelet would never confirm a pod gone):
  // the out-of-service taint takes its pods off it instead, once its etcd member is gone.
  if (target.unreachable === true) {
    const outOfService = outOfServiceTask(target.node, target.api);
    const tasks = target.controlPlane ? [quorumCheck(target), removeMember(target.node), outOfService] : [outOfService];
    return { name: 'remove-node', tags: ['remove-node'], tasks };
  }
  const tasks = target.controlPlane ? [quorumCheck(target), drainTask(target), removeMember(target.node)] : [drainTask(target)];
  return { name: 'remove-node', tags: ['remove-node'], tasks };
}

export function deleteNodeRole(target: RemoveNodeTarget): Role {
  // Reset or gone, the host runs no kubelet that would confirm its pods' deletion: the Node is
  // deleted, then whatever is still bound to it (a pod whose last moments the reset cut short,
  // a DaemonSet's) is force-deleted, rather than listed on a Node that is gone until the pod
  // garbage collector's sweep (found by the soak: four pods still listed minutes after).
  return { name: 'delete-node', tags: ['remove-node'], tasks: [deleteNodeAndPodsTask(target.node, target.api)] };
}
