// The controller's own API client for a cluster: the admin certificate from the PKI, the
// admin endpoint (load balancer or first control plane), the cluster CA.
import { apiClient, type ApiClient } from '../kube/api-client.js';
import type { ClusterInputs } from './cluster-inputs.js';

export function adminApi(inputs: Pick<ClusterInputs, 'pki' | 'topology'>): ApiClient {
  return apiClient({ server: inputs.topology.adminServerUrl, caCert: inputs.pki.trust.ca, clientCert: inputs.pki.admin.cert, clientKey: inputs.pki.admin.key });
}
