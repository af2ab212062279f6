// The last step of remove-node: delete the Node, then force-delete the pods still bound to it
// (a reset host's or a dead host's: its static pods' mirrors, its DaemonSets' pods, a pod whose
// grace period the reset cut short). No kubelet is left to confirm their deletion: they would
// stay listed, Terminating or Running, until the pod GC controller's sweep of orphans (40 s and
// more); while the Node exists, a DaemonSet would put its pod right back.
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { ApiError, type ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { forceDeletePod, readPodsOnNode } from './force-delete-pods.js';
import { outOfServiceState, type OutOfServiceState } from './out-of-service-state.js';

export function deleteNodeAndPodsPlan(node: string, state: OutOfServiceState): Change<null> {
  const pods = [...state.pods.toClear, ...state.pods.stay];
  const force = `force-delete the pods still bound to it: ${pods.join(', ')}`;
  if (state.nodeExists) return { kind: 'delete', summary: `delete the Node ${node}${pods.length === 0 ? '' : `, then ${force}`}`, payload: null };
  if (pods.length > 0) return { kind: 'delete', summary: `no Node ${node} any more; ${force}`, payload: null };
  return noChange(`no Node ${node} in the cluster, no pod bound to it`);
}

export function deleteNodeAndPodsTask(node: string, api: () => ApiClient): Task<{ state: Fact<OutOfServiceState> }, null> {
  return {
    name: `delete the Node ${node}`,
    tags: ['remove-node'],
    facts: () => ({ state: outOfServiceState(node) }),
    plan: ({ state }) => deleteNodeAndPodsPlan(node, state),
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
