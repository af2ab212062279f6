// The pods the API has bound to a node (any namespace, any phase), as the caller types them.
import type { ApiClient } from './api-client.js';

export async function podsBoundTo<P>(api: ApiClient, node: string): Promise<P[]> {
  return (await api.get<{ items: P[] }>(`/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${node}`)}`)).items;
}
