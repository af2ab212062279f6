// The pods bound to a node, read through the API, and their force-deletion (grace period 0:
// the API forgets the pod at once instead of waiting for a kubelet to confirm it stopped, which
// the kubelet of a dead host never does). Only for a node whose host is gone: on a running
// host the containers would go on running, unknown to the cluster.
import { ApiError, type ApiClient } from '../../src/kubernetes/kube/api-client.js';
import { podsBoundTo } from '../../src/kubernetes/kube/pods-bound-to.js';
import { podsOnNode, type PodItem, type PodsOnNode } from './pods-on-node.js';

export async function readPodsOnNode(api: ApiClient, node: string): Promise<PodsOnNode> {
  return podsOnNode(await podsBoundTo<PodItem>(api, node));
}

/** `pod` is namespace/name; false when it was already gone. */
export async function forceDeletePod(api: ApiClient, pod: string): Promise<boolean> {
  const slash = pod.indexOf('/');
  const [namespace, name] = [pod.slice(0, slash), pod.slice(slash + 1)];
  try {
    await api.delete(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}?gracePeriodSeconds=0`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}
