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
import type { HostSettings } from '../../src/orchestrator/inventory/model.js';
import { runningClusterStart } from '../../src/kubernetes/etcd/etcd-join.js';
import { ETCD_DATA_DIR, ETCD_USER } from '../../src/kubernetes/etcd/etcd-user.js';
import { ETCD_OWN_PKI_DIR, ETCD_OWN_PKI_FILES, ETCD_OWN_PKI_FORMER_DIR } from '../../src/kubernetes/pki/etcd-key-folder.js';
import { AUDIT_LOG_DIR } from '../../src/kubernetes/cluster/audit-policy.js';
import { directory } from '../../src/orchestrator/tasks/directory.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { fileAbsent } from '../../src/orchestrator/tasks/file-absent.js';
import { extraFilesPruned, extraFilesWritten } from './extra-files.js';
import { controlPlaneFiles } from './files.js';
import { controlPlaneManifests, templateDir } from './manifests.js';
import { etcdDataOwnedTask, etcdMemberAddedTask, etcdMemberPromotedTask, etcdUserTask, joinStateAt, type EtcdPlace } from './etcd.js';
import { lastGoodManifestsKeptTask, lastGoodManifestsUndo, waitForApiServerFirst, waitForControlPlane } from './wait.js';
import { etcdSnapshotBeforeChange } from './snapshot-before-change.js';

export { controlPlaneFiles } from './files.js';
export { likelyCause, waitForControlPlane } from './wait.js';

export interface ControlPlaneRoleOptions {
  /**
   * A cluster already answers (apply on a running cluster, upgrade, certs renew): a control
   * plane that is no etcd member yet joins the running etcd (added as a learner, promoted once
   * caught up), a member keeps the start flags it has, and the wait includes every static pod
   * running its current manifest. Otherwise a fresh install: every control plane starts a new
   * etcd cluster together.
   */
  readonly running: boolean;
  /**
   * On a running cluster: the file name (under <stateDir>/backups) of the etcd snapshot taken
   * before this run first changes a control plane (snapshot-before-change.ts); none when unset.
   */
  readonly snapshotBeforeChange?: string;
}

const peerUrl = (host: HostSettings): string => `https://${nodeAddress(host)}:2380`;

export function controlPlaneRole(inputs: ClusterInputs, options: ControlPlaneRoleOptions): Role {
  const files = controlPlaneFiles(inputs);
  const manifests = controlPlaneManifests(inputs, files);
  const { controlPlanes } = inputs.topology;
  const newCluster = { initialCluster: controlPlanes.map((h) => `${h.name}=${peerUrl(h)}`).join(','), initialClusterState: 'new' as const };
  const place: EtcdPlace = (ctx) => ({
    self: { name: ctx.host.name, peerUrl: peerUrl(ctx.host) },
    others: controlPlanes.filter((h) => h.name !== ctx.host.name).map((h) => `https://${nodeAddress(h)}:2379`),
  });
  return {
    name: 'control-plane',
    templateDir,
    tags: ['control-plane'],
    // On a running cluster, a failure puts back the manifests that last ran on this host.
    ...(options.running ? { undo: lastGoodManifestsUndo() } : {}),
    ...(options.running && options.snapshotBeforeChange !== undefined
      ? { beforeFirstChange: etcdSnapshotBeforeChange(inputs.inventory.stateDir, options.snapshotBeforeChange) }
      : {}),
    tasks: [
      etcdUserTask(),
      // CIS 1.1.19: etcd's own keys outside root's /etc/kubernetes/pki, in a folder it owns.
      directory({ path: ETCD_OWN_PKI_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      ...files.map((f) =>
        managedFile({
          path: f.path,
          mode: f.mode,
          content: f.content,
          ...(f.owner ? { owner: f.owner, group: f.owner } : {}),
          ...(f.secret ? { secret: true } : {}),
        }),
      ),
      // CIS 1.1.11 and 1.1.12: etcd's data dir 0700, owned by the etcd user it runs as.
      directory({ path: ETCD_DATA_DIR, mode: 0o700, owner: ETCD_USER, group: ETCD_USER }),
      etcdDataOwnedTask(),
      // The API server's audit log, readable by root only; collect it from here.
      directory({ path: AUDIT_LOG_DIR, mode: 0o700 }),
      ...(options.running ? [lastGoodManifestsKeptTask()] : []),
      // The files the components' flags reference (extraFiles, the OIDC CA), before the manifests that mount them.
      ...extraFilesWritten(inputs.componentFiles),
      // On a running cluster a new control plane joins etcd as a learner, starts, and gets its
      // vote once caught up, before its API server (which talks to this member only) starts.
      ...(options.running
        ? [
            etcdMemberAddedTask(place),
            manifests.etcd(
              (ctx) => ({ join: joinStateAt(place, ctx) }),
              ({ join }, ctx) => runningClusterStart(join, place(ctx).self),
            ),
            etcdMemberPromotedTask(place),
          ]
        : [
            manifests.etcd(
              () => ({}),
              () => newCluster,
            ),
          ]),
      manifests.component('kube-apiserver'),
      ...(options.running ? [waitForApiServerFirst()] : []),
      manifests.component('kube-controller-manager'),
      manifests.component('kube-scheduler'),
      waitForControlPlane(options.running),
      // Files dropped from the inventory go once the components run manifests that no longer name them.
      ...extraFilesPruned(inputs.componentFiles),
      // Clusters installed before 2026-11-24 kept etcd's keys in root's PKI folder: gone once
      // etcd runs on the ones in its own folder (the wait above).
      ...ETCD_OWN_PKI_FILES.map((f) => fileAbsent({ path: `${ETCD_OWN_PKI_FORMER_DIR}/${f}`, why: `etcd's own keys are in ${ETCD_OWN_PKI_DIR} now` })),
    ],
  };
}
