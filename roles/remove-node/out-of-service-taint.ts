// Put the out-of-service taint on a Node through the API, keeping the taints it has: a Node's
// taints are one list that a patch replaces whole, so the patch names the resourceVersion it
// was read at and is made again on a conflict (the node lifecycle controller taints a Node
// that stops answering, maybe at this very moment).
import { ApiError, type ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { OUT_OF_SERVICE_TAINT } from './pods-on-node.js';
import type { Taint } from './tolerates.js';

interface NodeTaints {
  readonly metadata: { readonly resourceVersion: string };
  readonly spec?: { readonly taints?: readonly Taint[] };
}

const ATTEMPTS = 5;

/** 'tainted' now, 'already' tainted, or 'no node' (nothing to taint). */
export async function addOutOfServiceTaint(api: ApiClient, node: string): Promise<'tainted' | 'already' | 'no node'> {
  const path = `/api/v1/nodes/${encodeURIComponent(node)}`;
  for (let attempt = 1; ; attempt++) {
    let current: NodeTaints;
    try {
      current = await api.get<NodeTaints>(path);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return 'no node';
      throw error;
    }
    const taints = current.spec?.taints ?? [];
    if (taints.some((t) => t.key === OUT_OF_SERVICE_TAINT.key)) return 'already';
    try {
      await api.patch(path, { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { taints: [...taints, OUT_OF_SERVICE_TAINT] } });
      return 'tainted';
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409) || attempt >= ATTEMPTS) throw error;
    }
  }
}
