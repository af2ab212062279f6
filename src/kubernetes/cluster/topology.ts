// Derived facts about the cluster every role shares, computed from the inventory alone:
// which hosts are control planes, the API endpoint nodes use, the first service IP (the
// apiserver's), the cluster DNS IP, and the address each node advertises.
import { formatIpv4, parseCidr } from '../inventory/cidr.js';
import type { HostSettings, Inventory } from '../../orchestrator/inventory/model.js';

export interface Topology {
  readonly controlPlanes: readonly HostSettings[];
  readonly workers: readonly HostSettings[];
  /** The control plane that runs the once-per-cluster steps (addons). */
  readonly firstControlPlane: HostSettings;
  /** https://HOST:PORT every kubelet and kube-proxy use: the load balancer, the only control
   * plane, or the node-local proxy (several control planes and no load balancer). */
  readonly apiServerUrl: string;
  /** apiServerUrl's port (its host is apiEndpointHost), for what takes them apart (in-cluster
   * clients' environment). */
  readonly apiServerPort: number;
  /** What the admin kubeconfig on the controller uses: the load balancer or the first control plane. */
  readonly adminServerUrl: string;
  /** Every node runs kcluster-apiproxy on 127.0.0.1:LOCAL_PROXY_PORT. */
  readonly localProxy: boolean;
  readonly apiEndpointHost: string;
  readonly apiPort: number;
  /** The kubernetes.default Service IP: first address of the service CIDR. */
  readonly kubernetesServiceIp: string;
  /** The cluster DNS Service IP: tenth address of the service CIDR (kubeadm's choice). */
  readonly dnsServiceIp: string;
}

/** Where kcluster-apiproxy listens on every node (the API server itself has 6443 on control planes). */
export const LOCAL_PROXY_PORT = 6444;

function nthAddress(cidrText: string, n: number): string {
  const cidr = parseCidr(cidrText);
  if (typeof cidr === 'string') throw new Error(`cluster CIDR ${cidrText}: ${cidr}`);
  return formatIpv4(cidr.base + n);
}

export function topologyOf(inventory: Inventory): Topology {
  const controlPlanes = inventory.hosts.filter((h) => h.roles.includes('control-plane'));
  const first = controlPlanes[0];
  if (!first) throw new Error(`${inventory.file}: no host has the control-plane role`);
  const localProxy = controlPlanes.length > 1 && inventory.cluster.apiEndpoint.host === undefined;
  const apiEndpointHost = inventory.cluster.apiEndpoint.host ?? (localProxy ? '127.0.0.1' : first.ssh.address);
  const apiPort = inventory.cluster.apiEndpoint.port;
  const adminHost = inventory.cluster.apiEndpoint.host ?? first.ssh.address;
  const apiServerPort = localProxy ? LOCAL_PROXY_PORT : apiPort;
  return {
    controlPlanes,
    workers: inventory.hosts.filter((h) => !h.roles.includes('control-plane')),
    firstControlPlane: first,
    apiServerUrl: `https://${apiEndpointHost}:${apiServerPort}`,
    apiServerPort,
    adminServerUrl: `https://${adminHost}:${apiPort}`,
    localProxy,
    apiEndpointHost,
    apiPort,
    kubernetesServiceIp: nthAddress(inventory.cluster.serviceCIDR, 1),
    dnsServiceIp: nthAddress(inventory.cluster.serviceCIDR, 10),
  };
}

/** The address a node advertises (kubelet --node-ip, etcd, apiserver): its inventory address. */
export const nodeAddress = (host: HostSettings): string => host.ssh.address;
