// certs-renew: what `kcluster certs renew` runs once the state folder's leaf certificates are
// renewed. The control planes one at a time (their certificates, keys and kubeconfigs, then the
// kubelet's; each static pod restarts because its manifest carries the sha256 of what it reads;
// then wait until every static pod runs its new manifest and is Ready, and the node is Ready),
// then the other nodes (the kubelet's kubeconfig and serving certificate; the kubelet restarts,
// pods keep running). No addons: kube-proxy authenticates with its ServiceAccount token, not a
// certificate from the PKI, and the cluster RBAC only names the kubelet-client CN, which a
// renewal keeps. An etcd snapshot is taken before the first control plane changes
// (roles/control-plane/snapshot-before-change.ts). Any failure stops the run; `kcluster apply` finishes the distribution later.
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { staticPodsCurrentRole } from '../roles/static-pods/index.js';
import { controlPlaneRole } from '../roles/control-plane/index.js';
import { kubeletRole } from '../roles/kubelet/index.js';
import { nodeReadyRole } from '../roles/upgrade/index.js';
import { snapshotName } from '../src/kubernetes/etcd/etcd-snapshot.js';

export function certsRenewPlaybook(inputs: ClusterInputs): Playbook {
  return {
    name: 'certs-renew',
    description: 'renewed certificates to the control planes one at a time (static pods restarted and Ready), then to the other nodes',
    plays: [
      {
        name: 'control planes, one at a time',
        hosts: 'control-plane',
        serial: 1,
        roles: [
          controlPlaneRole(inputs, { running: true, snapshotBeforeChange: snapshotName(new Date()) }),
          kubeletRole(inputs),
          staticPodsCurrentRole(),
          nodeReadyRole(inputs),
        ],
        anyErrorsFatal: true,
      },
      { name: 'other nodes', hosts: 'all,!control-plane', roles: [kubeletRole(inputs), nodeReadyRole(inputs)] },
    ],
  };
}
