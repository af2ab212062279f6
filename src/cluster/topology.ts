// Derived facts about the cluster every role shares, computed from the inventory alone:
// which hosts are control planes, the API endpoint nodes use, the first service IP (the
// apiserver's), the cluster DNS IP, and the address each node advertises.
import { formatIpv4, parseCidr } from '../inventory/cidr.js';
import type { HostSettings, Inventory } from '../inventory/model.js';

export interface Topology {
  readonly controlPlanes: readonly HostSettings[];
  readonly workers: readonly HostSettings[];
  /** The control plane that runs the once-per-cluster steps (addons). */
  readonly firstControlPlane: HostSettings;
  /** https://HOST:PORT every kubelet, kube-proxy and the admin use. */
  readonly apiServerUrl: string;
  readonly apiEndpointHost: string;
  readonly apiPort: number;
  /** The kubernetes.default Service IP: first address of the service CIDR. */
  readonly kubernetesServiceIp: string;
  /** The cluster DNS Service IP: tenth address of the service CIDR (kubeadm's choice). */
  readonly dnsServiceIp: string;
}

function nthAddress(cidrText: string, n: number): string {
  const cidr = parseCidr(cidrText);
  if (typeof cidr === 'string') throw new Error(`cluster CIDR ${cidrText}: ${cidr}`);
  return formatIpv4(cidr.base + n);
}

export function topologyOf(inventory: Inventory): Topology {
  const controlPlanes = inventory.hosts.filter((h) => h.roles.includes('control-plane'));
  const first = controlPlanes[0];
  if (!first) throw new Error(`${inventory.file}: no host has the control-plane role`);
  if (controlPlanes.length > 1 && inventory.cluster.apiEndpoint.host === undefined) {
    throw new Error(
      `${inventory.file}: ${controlPlanes.length} control planes but no cluster.apiEndpoint.host: set it to the load balancer address in front of them (the per-node local proxy is not built yet)`,
    );
  }
  const apiEndpointHost = inventory.cluster.apiEndpoint.host ?? first.ssh.address;
  const apiPort = inventory.cluster.apiEndpoint.port;
  return {
    controlPlanes,
    workers: inventory.hosts.filter((h) => !h.roles.includes('control-plane')),
    firstControlPlane: first,
    apiServerUrl: `https://${apiEndpointHost}:${apiPort}`,
    apiEndpointHost,
    apiPort,
    kubernetesServiceIp: nthAddress(inventory.cluster.serviceCIDR, 1),
    dnsServiceIp: nthAddress(inventory.cluster.serviceCIDR, 10),
  };
}

/** The address a node advertises (kubelet --node-ip, etcd, apiserver): its inventory address. */
export const nodeAddress = (host: HostSettings): string => host.ssh.address;
