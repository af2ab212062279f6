// The two families of a dual-stack cluster as each component's flag takes them: IPv4 first,
// then IPv6 (kcluster's clusters are IPv4-primary). In an IPv4-only cluster each is the IPv4
// value alone, so the same templates serve both.
import type { ClusterSettings } from '../inventory/cluster-settings.js';
import type { HostSettings } from '../../orchestrator/inventory/model.js';
import { nodeAddress } from './topology.js';

/** Why a Node registered while the cluster was IPv4 only cannot serve a dual-stack one, and what to do (preflight and the CNI config say it). */
export const IPV4_ONLY_NODE =
  "it registered while the cluster was IPv4 only, and Kubernetes never changes a Node's pod ranges. An installed cluster cannot become dual-stack: remove the IPv6 ranges from cluster.podCIDR and cluster.serviceCIDR, or install the cluster again";

export const isDualStack = (cluster: Pick<ClusterSettings, 'ipv6'>): boolean => cluster.ipv6 !== undefined;

/** --cluster-cidr, kube-proxy's clusterCIDR: "v4" or "v4,v6". */
export const podCidrs = (cluster: Pick<ClusterSettings, 'podCIDR' | 'ipv6'>): string =>
  cluster.ipv6 ? `${cluster.podCIDR},${cluster.ipv6.podCIDR}` : cluster.podCIDR;

/** --service-cluster-ip-range: "v4" or "v4,v6". */
export const serviceCidrs = (cluster: Pick<ClusterSettings, 'serviceCIDR' | 'ipv6'>): string =>
  cluster.ipv6 ? `${cluster.serviceCIDR},${cluster.ipv6.serviceCIDR}` : cluster.serviceCIDR;

/** The node's addresses, IPv4 first (the kubelet's --node-ip): its IPv6 one only in a dual-stack cluster. */
export function nodeAddresses(host: HostSettings, cluster: Pick<ClusterSettings, 'ipv6'>): readonly string[] {
  if (!cluster.ipv6) return [nodeAddress(host)];
  if (host.ipv6Address === undefined)
    throw new Error(`${host.name} (${host.source}): the cluster is dual-stack and the host has no ipv6Address: give its IPv6 address in the inventory`);
  return [nodeAddress(host), host.ipv6Address];
}
