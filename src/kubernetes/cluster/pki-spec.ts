// The PKI the inventory calls for: names and addresses of the control planes and nodes, the
// API endpoint and the service network, as the certificate generator wants them.
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { PkiSpec } from '../pki/cluster-pki.js';
import { nodeAddress, type Topology } from './topology.js';

export function pkiSpecOf(inventory: Inventory, topology: Topology): PkiSpec {
  return {
    clusterName: inventory.cluster.name,
    controlPlanes: topology.controlPlanes.map((h) => ({ name: h.name, address: nodeAddress(h) })),
    nodes: inventory.hosts.map((h) => ({ name: h.name, address: nodeAddress(h) })),
    apiEndpoint: { host: topology.apiEndpointHost, port: topology.apiPort },
    serviceCIDR: inventory.cluster.serviceCIDR,
    clusterDomain: inventory.cluster.clusterDomain,
    extraApiServerSans: inventory.cluster.apiServerCertSANs,
  };
}
