// The PKI the inventory calls for: names and addresses of the control planes and nodes, the
// API endpoint and the service network, as the certificate generator wants them.
import type { HostSettings, Inventory } from '../../orchestrator/inventory/model.js';
import type { PkiNode, PkiSpec } from '../pki/cluster-pki.js';
import { nodeAddresses } from './dual-stack.js';
import type { Topology } from './topology.js';

function pkiNode(host: HostSettings, inventory: Inventory): PkiNode {
  const [address, ipv6Address] = nodeAddresses(host, inventory.cluster);
  return { name: host.name, address: address!, ...(ipv6Address !== undefined ? { ipv6Address } : {}) };
}

export function pkiSpecOf(inventory: Inventory, topology: Topology): PkiSpec {
  return {
    clusterName: inventory.cluster.name,
    controlPlanes: topology.controlPlanes.map((h) => pkiNode(h, inventory)),
    nodes: inventory.hosts.map((h) => pkiNode(h, inventory)),
    apiEndpoint: { host: topology.apiEndpointHost, port: topology.apiPort },
    serviceCIDR: inventory.cluster.serviceCIDR,
    clusterDomain: inventory.cluster.clusterDomain,
    extraApiServerSans: inventory.cluster.apiServerCertSANs,
  };
}
