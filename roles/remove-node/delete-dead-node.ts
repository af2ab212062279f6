// --unreachable: delete a dead node's Node, then force-delete the pods still bound to it (its
// static pods' mirrors, the pods that tolerate the out-of-service taint such as kube-proxy's
// and flannel's). Deleted with the Node, they would only be marked Terminating, waiting for a
// kubelet that is gone, until the pod GC controller's sweep of orphans (40 s and more); while
// the Node exists, a DaemonSet would put its pod right back.
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { ApiError, type ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { forceDeletePod, readPodsOnNode } from './force-delete-pods.js';
import { outOfServiceState, type OutOfServiceState } from './out-of-service-state.js';

export function deleteDeadNodePlan(node: string, state: OutOfServiceState): Change<null> {
  const pods = [...state.pods.toClear, ...state.pods.stay];
  const force = `force-delete the pods still bound to it: ${pods.join(', ')}`;
  if (state.nodeExists) return { kind: 'delete', summary: `delete the Node ${node}${pods.length === 0 ? '' : `, then ${force}`}`, payload: null };
  if (pods.length > 0) return { kind: 'delete', summary: `no Node ${node} any more; ${force}`, payload: null };
  return noChange(`no Node ${node} in the cluster, no pod bound to it`);
}

export function deleteDeadNodeTask(node: string, api: () => ApiClient): Task<{ state: Fact<OutOfServiceState> }, null> {
  return {
    name: `delete the Node ${node}`,
    tags: ['remove-node'],
    facts: () => ({ state: outOfServiceState(node) }),
    plan: ({ state }) => deleteDeadNodePlan(node, state),
    apply: async (_change, ctx) => {
      const client = api();
      await client
        .delete(`/api/v1/nodes/${encodeURIComponent(node)}`)
        .catch((e: unknown) => (e instanceof ApiError && e.status === 404 ? undefined : Promise.reject(e)));
      // Read after the deletion: no DaemonSet puts a pod back on a Node that is gone.
      const left = await readPodsOnNode(client, node);
      for (const pod of [...left.toClear, ...left.stay])
        if (await forceDeletePod(client, pod)) ctx.progress(`force-deleted ${pod}, left on the deleted Node ${node}`);
    },
  };
}
