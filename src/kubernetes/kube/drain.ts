// Cordon, drain and uncordon a node the way `kubectl drain` does: mark it unschedulable (and
// annotate that kcluster did, so an interrupted run can say so and a rerun can undo it), then
// evict every pod through the Eviction API, which respects PodDisruptionBudgets (429: retry
// until the timeout). DaemonSet pods and static (mirror) pods stay; pods with emptyDir data are
// evicted too (their data is scratch by definition).
import { evictablePod } from '../facts/node-drain-state.js';
import { waitProgressReporter } from '../../orchestrator/engine/wait-progress.js';
import { ApiError, type ApiClient } from './api-client.js';
import { podsBoundTo } from './pods-bound-to.js';

export const CORDONED_BY_KCLUSTER = 'kcluster.io/cordoned';

interface PodList {
  items: {
    metadata: { name: string; namespace: string; deletionTimestamp?: string; annotations?: Record<string, string>; ownerReferences?: { kind: string }[] };
    status?: { phase?: string };
  }[];
}

const nodePath = (node: string): string => `/api/v1/nodes/${encodeURIComponent(node)}`;

export async function cordon(api: ApiClient, node: string): Promise<void> {
  await api.patch(nodePath(node), { metadata: { annotations: { [CORDONED_BY_KCLUSTER]: 'true' } }, spec: { unschedulable: true } });
}

export async function uncordon(api: ApiClient, node: string): Promise<void> {
  await api.patch(nodePath(node), { metadata: { annotations: { [CORDONED_BY_KCLUSTER]: null } }, spec: { unschedulable: null } });
}

/** Nodes kcluster cordoned and has not uncordoned yet (an interrupted upgrade). */
export async function nodesCordonedByKcluster(api: ApiClient): Promise<string[]> {
  const nodes = await api.get<{ items: { metadata: { name: string; annotations?: Record<string, string> } }[] }>('/api/v1/nodes');
  return nodes.items.filter((n) => n.metadata.annotations?.[CORDONED_BY_KCLUSTER] === 'true').map((n) => n.metadata.name);
}

const podNames = (pods: PodList['items']): string => pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(', ');

/**
 * Evict every evictable pod of the node and wait until they are gone; `progress` is told every
 * 20 s which pods are still there (a PodDisruptionBudget can hold a drain for minutes).
 */
export async function drain(
  api: ApiClient,
  node: string,
  timeoutMs: number,
  log: (line: string) => void = () => {},
  progress: (line: string) => void = () => {},
): Promise<void> {
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  const tell = waitProgressReporter<PodList['items']>(
    { describe: (pods) => `pods evicted from ${node}: ${podNames(pods ?? [])}`, report: progress },
    startedAt,
    timeoutMs,
  );
  const podsOn = async () => (await podsBoundTo<PodList['items'][number]>(api, node)).filter(evictablePod);
  for (;;) {
    const pods = await podsOn();
    if (pods.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `draining ${node} timed out after ${timeoutMs / 1000} s; still there: ${podNames(pods)} (a PodDisruptionBudget may forbid evicting them)`,
      );
    }
    tell(Date.now(), pods);
    for (const pod of pods.filter((p) => p.metadata.deletionTimestamp === undefined)) {
      const { namespace, name } = pod.metadata;
      try {
        await api.post(`/api/v1/namespaces/${namespace}/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } });
        log(`evicted ${namespace}/${name}`);
      } catch (error) {
        if (error instanceof ApiError && error.status === 429) continue; // a PodDisruptionBudget says not now
        if (error instanceof ApiError && error.status === 404) continue; // already gone
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
