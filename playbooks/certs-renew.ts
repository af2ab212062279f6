// certs-renew: what `kcluster certs renew` runs once the state folder's leaf certificates are
// renewed: the PKI installed on the running cluster (playbooks/pki-distribution.ts). No addons:
// kube-proxy authenticates with its ServiceAccount token, not a certificate from the PKI, and
// the cluster RBAC only names the kubelet-client CN, which a renewal keeps. Any failure stops
// the run; `kcluster apply` finishes the distribution later.
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { pkiDistributionPlays } from './pki-distribution.js';

export function certsRenewPlaybook(inputs: ClusterInputs): Playbook {
  return {
    name: 'certs-renew',
    description: 'renewed certificates to the control planes one at a time (static pods restarted and Ready), then to the other nodes',
    plays: pkiDistributionPlays(inputs),
  };
}
