// Each node's kubelet version, from a NodeList. A Node no kubelet reported on (made by hand,
// or registered but not started yet) has none and is left out: there is nothing to compare.
export interface NodeListWithVersions {
  readonly items: readonly { readonly metadata: { readonly name: string }; readonly status?: { readonly nodeInfo?: { readonly kubeletVersion?: string } } }[];
}

export function kubeletVersionsOf(nodes: NodeListWithVersions): [name: string, version: string][] {
  return nodes.items.flatMap((n) => {
    const version = n.status?.nodeInfo?.kubeletVersion;
    return version ? [[n.metadata.name, version] as [string, string]] : [];
  });
}
