// The control-plane role: the cluster certificates and keys this control plane needs, the
// kubeconfigs of the admin, controller-manager and scheduler, and etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler as static pods; then it waits until the API
// server is ready, and on timeout shows the components' last log lines with the likely cause.
// One idea per file: files.ts (what the host gets), manifests.ts (the static pods and their
// inputs hash), etcd.ts (etcd's user, data and membership), wait.ts (the readiness wait and
// its undo). See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { ETCD_DATA_DIR, ETCD_USER } from '../../src/kubernetes/etcd/etcd-user.js';
import { ETCD_OWN_PKI_DIR, ETCD_OWN_PKI_FILES, ETCD_OWN_PKI_FORMER_DIR } from '../../src/kubernetes/pki/etcd-key-folder.js';
import { AUDIT_LOG_DIR } from '../../src/kubernetes/cluster/audit-policy.js';
import { directory } from '../../src/orchestrator/tasks/directory.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { fileAbsent } from '../../src/orchestrator/tasks/file-absent.js';
import { extraFilesPruned, extraFilesWritten } from './extra-files.js';
import { controlPlaneFiles } from './files.js';
import { controlPlaneManifests, templateDir } from './manifests.js';
import { etcdDataOwnedTask, etcdUserTask } from './etcd.js';
import { lastGoodManifestsKeptTask, waitForControlPlane } from './wait.js';

export { controlPlaneFiles } from './files.js';
export { likelyCause, waitForControlPlane } from './wait.js';

export interface ControlPlaneRoleOptions {
  /** Also wait until every static pod runs its current manifest (a running cluster: upgrade, certs renew, apply on a running cluster). */
  readonly staticPodsCurrent: boolean;
}

export function controlPlaneRole(inputs: ClusterInputs, options: ControlPlaneRoleOptions): Role {
  const files = controlPlaneFiles(inputs);
  const manifests = controlPlaneManifests(inputs, files);
  const initialCluster = inputs.topology.controlPlanes.map((h) => `${h.name}=https://${nodeAddress(h)}:2380`).join(',');
  return {
    name: 'control-plane',
    templateDir,
    tags: ['control-plane'],
    tasks: [
      etcdUserTask(),
      // CIS 1.1.19: etcd's own keys outside root's /etc/kubernetes/pki, in a folder it owns.
      directory({ path: ETCD_OWN_PKI_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      ...files.map((f) => managedFile({ path: f.path, mode: f.mode, content: f.content, ...(f.owner ? { owner: f.owner, group: f.owner } : {}), ...(f.secret ? { secret: true } : {}) })),
      // CIS 1.1.11 and 1.1.12: etcd's data dir 0700, owned by the etcd user it runs as.
      directory({ path: ETCD_DATA_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      etcdDataOwnedTask(),
      // The API server's audit log, readable by root only; collect it from here.
      directory({ path: AUDIT_LOG_DIR, mode: 0o700 }),
      ...(options.staticPodsCurrent ? [lastGoodManifestsKeptTask()] : []),
      // The files the components' flags reference (extraFiles, the OIDC CA), before the manifests that mount them.
      ...extraFilesWritten(inputs.componentFiles),
      manifests.etcd(() => ({}), () => ({ initialCluster, initialClusterState: 'new' })),
      manifests.component('kube-apiserver'),
      manifests.component('kube-controller-manager'),
      manifests.component('kube-scheduler'),
      waitForControlPlane(options.staticPodsCurrent),
      // Files dropped from the inventory go once the components run manifests that no longer name them.
      ...extraFilesPruned(inputs.componentFiles),
      // Clusters installed before 2026-11-24 kept etcd's keys in root's PKI folder: gone once
      // etcd runs on the ones in its own folder (the wait above).
      ...ETCD_OWN_PKI_FILES.map((f) => fileAbsent({ path: `${ETCD_OWN_PKI_FORMER_DIR}/${f}`, why: `etcd's own keys are in ${ETCD_OWN_PKI_DIR} now` })),
    ],
  };
}
