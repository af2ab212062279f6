// The pods bound to a node (a list of spec.nodeName=NODE, from kubectl or the API), sorted by
// what the out-of-service taint does to them: most go (the taint eviction controller deletes
// them, the pod GC controller force-deletes them once the Node is NotReady); the mirror pods of
// static pods and the pods that tolerate the taint for good stay until the Node itself goes.
import { toleratesForGood, type Taint, type Toleration } from './tolerates.js';

/** node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, the taint of a non-graceful node shutdown. */
export const OUT_OF_SERVICE_TAINT: Taint = { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' };
export const OUT_OF_SERVICE = `${OUT_OF_SERVICE_TAINT.key}=${OUT_OF_SERVICE_TAINT.value ?? ''}:${OUT_OF_SERVICE_TAINT.effect}`;

export interface PodItem {
  readonly metadata: { readonly name: string; readonly namespace: string; readonly annotations?: Record<string, string> };
  readonly spec?: { readonly tolerations?: readonly Toleration[] };
}

export interface PodsOnNode {
  /** namespace/name of the pods the taint takes off the node (finished ones too: deleted at once). */
  readonly toClear: readonly string[];
  /** namespace/name of the static pods' mirrors and the pods that tolerate the taint: they go with the Node. */
  readonly stay: readonly string[];
}

const nameOf = (pod: PodItem): string => `${pod.metadata.namespace}/${pod.metadata.name}`;

/** The kubelet's mirror of a static pod: the kubelet gives it a toleration of every NoExecute taint. */
const isMirror = (pod: PodItem): boolean => pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;

export function podsOnNode(items: readonly PodItem[]): PodsOnNode {
  const stays = (pod: PodItem): boolean => isMirror(pod) || toleratesForGood(pod.spec?.tolerations ?? [], OUT_OF_SERVICE_TAINT);
  return { toClear: items.filter((p) => !stays(p)).map(nameOf), stay: items.filter(stays).map(nameOf) };
}

/** A pod list as kubectl -o json or the API print it; throws, with the text, on anything else. */
export function parsePodList(text: string): PodsOnNode {
  let list: { items?: PodItem[] };
  try {
    list = JSON.parse(text) as { items?: PodItem[] };
  } catch {
    throw new Error(`could not read the pods bound to the node: ${text.trim().slice(0, 300)}`);
  }
  if (!Array.isArray(list.items)) throw new Error(`could not read the pods bound to the node: ${text.trim().slice(0, 300)}`);
  return podsOnNode(list.items);
}
