// --unreachable: take a dead node's pods off it before its Node is deleted, the way a
// non-graceful node shutdown does. The out-of-service taint makes the taint eviction controller
// delete the pods that do not tolerate it (their endpoints leave the Services' EndpointSlices
// at once), the pod GC controller force-delete them once the Node is NotReady, and the
// attach-detach controller detach their volumes so that their replacements can attach them
// elsewhere. A host that just died may still be Ready for the node-monitor grace period (40 s
// or more), so the wait is bounded and kcluster force-deletes what is left itself.
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import type { ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { forceDeletePod, readPodsOnNode } from './force-delete-pods.js';
import { outOfServiceState, type OutOfServiceState } from './out-of-service-state.js';
import { addOutOfServiceTaint } from './out-of-service-taint.js';
import { OUT_OF_SERVICE } from './pods-on-node.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';

/** How long the pod GC controller gets before kcluster force-deletes the pods itself. */
// Short: the operator said the host is gone, and a Node that still counts as Ready (the
// node-monitor grace period) gets nothing from the pod GC controller however long kcluster waits.
export const POD_GC_WAIT_MS = 10_000;

export interface OutOfServicePayload {
  /** The Node is not tainted yet. */
  readonly taint: boolean;
  /** namespace/name of the pods to take off it, as planned. */
  readonly pods: readonly string[];
}

export function outOfServicePlan(node: string, state: OutOfServiceState, podGcWaitMs = POD_GC_WAIT_MS): Change<OutOfServicePayload> {
  if (!state.nodeExists) return noChange(`no Node ${node} in the cluster`);
  const { toClear, stay } = state.pods;
  const staying = stay.length === 0 ? '' : ` (${stay.length} more go with the Node: static pods' mirrors and pods that tolerate the taint)`;
  if (state.tainted && toClear.length === 0) return noChange(`${node} is out of service and has no pod left to force-delete${staying}`);
  const pods = toClear.length === 0 ? 'no pod to force-delete' : `force-delete ${toClear.join(', ')}`;
  return {
    kind: 'run',
    summary:
      `${state.tainted ? `${node} is tainted out of service` : `taint ${node} ${OUT_OF_SERVICE}`}: ${pods}${staying} ` +
      `(the pod GC controller does once the Node is NotReady, kcluster after ${podGcWaitMs / 1000} s); its volumes are detached`,
    payload: { taint: !state.tainted, pods: toClear },
  };
}

/** `podGcWaitMs`: shorter in tests. */
export function outOfServiceTask(
  node: string,
  api: () => ApiClient,
  podGcWaitMs = POD_GC_WAIT_MS,
): Task<{ state: Fact<OutOfServiceState> }, OutOfServicePayload> {
  return {
    name: `take ${node} out of service`,
    tags: ['remove-node'],
    facts: () => ({ state: outOfServiceState(node) }),
    plan: ({ state }) => outOfServicePlan(node, state, podGcWaitMs),
    apply: async (change, ctx) => {
      const client = api();
      if (change.payload.taint && (await addOutOfServiceTaint(client, node)) === 'no node') return;
      const outcome = await pollUntil({
        timeoutMs: podGcWaitMs,
        intervalMs: 2000,
        signal: ctx.signal,
        probe: () => readPodsOnNode(client, node),
        done: (pods) => pods.toClear.length === 0,
        progress: {
          describe: (pods) => `the pod GC controller to force-delete ${pods === undefined ? `the pods of ${node}` : pods.toClear.join(', ')}`,
          report: (line) => ctx.progress(line),
        },
      });
      if (!outcome.reached && outcome.interrupted)
        throw new Error(`interrupted while waiting for the pod GC controller to force-delete the pods of ${node}; a rerun goes on`);
      const left = outcome.reached ? [] : (await readPodsOnNode(client, node)).toClear;
      const gone = change.payload.pods.filter((p) => !left.includes(p));
      if (gone.length > 0) ctx.progress(`force-deleted by the pod GC controller (out-of-service taint): ${gone.join(', ')}`);
      for (const pod of left) {
        // Still there: the Node was Ready all along (the pod GC controller waits for NotReady).
        if (await forceDeletePod(client, pod)) ctx.progress(`force-deleted by kcluster after ${podGcWaitMs / 1000} s: ${pod}`);
      }
    },
  };
}
