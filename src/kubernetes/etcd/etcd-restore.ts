// The steps of restoring an etcd snapshot on every control plane at once (a member restored
// alone would form a cluster of its own). roles/etcd-snapshot runs each step as a play on every
// control plane, so a step is done everywhere before the next starts:
//   1. the snapshot on the host, sha256 and `etcdutl snapshot status` checked;
//   2. each member's new data dir built from the snapshot beside the current one (its own name
//      and peer URL, a new cluster token): nothing running changes;
//   3. the control plane stopped: the four static-pod manifests move to /etc/kubernetes/restoring/
//      and the containers are waited for;
//   4. the data dirs swapped (the old one kept as /var/lib/etcd.before-restore-TIME) and the
//      manifests put back.
// A failure before step 4 changes nothing that stays: the cleanup puts parked manifests back
// and removes a half-built data dir. The API servers start with the restored data.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { MANIFESTS_DIR } from '../facts/static-pods.js';
import { ETCD_USER } from './etcd-user.js';

export interface RestoreMember {
  /** The etcd member name (the node name) and the address its peer URL uses. */
  readonly name: string;
  readonly address: string;
}

/** What every member's steps share, fixed by the command before the run. */
export interface RestorePlan {
  readonly members: readonly RestoreMember[];
  /** The snapshot's path on the hosts. */
  readonly remoteSnapshot: string;
  /** A new cluster token, so the restored members never talk to the old cluster. */
  readonly clusterToken: string;
  /** Where each host keeps its previous data dir. */
  readonly keptDataDir: string;
}

const MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];
export const PARKED_MANIFESTS = '/etc/kubernetes/restoring';
const RESTORING = '/var/lib/etcd.restoring';

export function restorePlan(members: readonly RestoreMember[], remoteSnapshot: string, stamp: string): RestorePlan {
  return { members, remoteSnapshot, clusterToken: `kcluster-restore-${stamp}`, keptDataDir: `/var/lib/etcd.before-restore-${stamp}` };
}

/**
 * How far a restore moves etcd's revision past the snapshot's, with the revisions before marked
 * compacted. Without it, the restored store's revisions may be lower than those the API servers'
 * watch caches, the kubelets and the controllers already saw (the cluster the snapshot is
 * restored onto lived on after it, or was installed anew): their watches then miss changes, and
 * pods, endpoints and nodes stay as the clients last saw them. Compacted, every watch from before
 * is refused and starts again from a fresh list. The size is the one etcd's and Kubernetes'
 * restore guides use: more writes than any cluster makes between a snapshot and its restore.
 */
export const RESTORE_REVISION_BUMP = 1_000_000_000;

export async function buildRestoredDataDir(connection: Connection, plan: RestorePlan, name: string): Promise<void> {
  const self = plan.members.find((m) => m.name === name);
  if (!self) throw new Error(`${name} is not among the control planes of the restore (${plan.members.map((m) => m.name).join(', ')})`);
  const initialCluster = plan.members.map((m) => `${m.name}=https://${m.address}:2380`).join(',');
  await execChecked(
    connection,
    sh`rm -rf ${RESTORING} && /usr/local/bin/etcdutl snapshot restore ${plan.remoteSnapshot} --data-dir=${RESTORING} --name=${name} --initial-cluster=${initialCluster} --initial-cluster-token=${plan.clusterToken} --initial-advertise-peer-urls=${`https://${self.address}:2380`} --bump-revision=${String(RESTORE_REVISION_BUMP)} --mark-compacted >/dev/null && chmod 0700 ${RESTORING}`,
    { become: true, label: 'etcdutl snapshot restore', timeoutMs: 300_000 },
  );
}

export async function stopControlPlane(connection: Connection): Promise<void> {
  await execChecked(
    connection,
    sh`set -e; mkdir -p ${PARKED_MANIFESTS}
for f in ${MANIFESTS}; do [ -f ${MANIFESTS_DIR}/$f ] && mv ${MANIFESTS_DIR}/$f ${PARKED_MANIFESTS}/$f; done
for i in $(seq 1 90); do crictl ps -q --name '^(etcd|kube-apiserver|kube-controller-manager|kube-scheduler)$' 2>/dev/null | grep -q . || exit 0; sleep 1; done
echo "the control-plane containers did not stop within 90 s" >&2; exit 1`,
    { become: true, label: 'stop the control plane for the restore', timeoutMs: 120_000 },
  );
}

export async function swapDataDir(connection: Connection, plan: RestorePlan): Promise<void> {
  // The restored data belongs to the user etcd runs as (CIS 1.1.12), when kcluster made one.
  await execChecked(
    connection,
    sh`set -e; [ -d ${RESTORING} ]; ! getent passwd ${ETCD_USER} >/dev/null || chown -R ${`${ETCD_USER}:${ETCD_USER}`} ${RESTORING}; [ -d /var/lib/etcd ] && mv /var/lib/etcd ${plan.keptDataDir}; mv ${RESTORING} /var/lib/etcd`,
    {
      become: true,
      label: 'swap the etcd data dir',
    },
  );
}

export async function startControlPlane(connection: Connection): Promise<void> {
  await execChecked(
    connection,
    sh`for f in ${MANIFESTS}; do [ -f ${PARKED_MANIFESTS}/$f ] && mv ${PARKED_MANIFESTS}/$f ${MANIFESTS_DIR}/$f; done; rmdir ${PARKED_MANIFESTS} 2>/dev/null; true`,
    {
      become: true,
      label: 'start the control plane',
    },
  );
}

export async function discardRestoredDataDir(connection: Connection): Promise<void> {
  await execChecked(connection, sh`rm -rf ${RESTORING}`, { become: true, label: 'remove a restored data dir not swapped in' });
}

export interface RestoreLeftovers {
  /** Manifests parked by a stop whose start never came. */
  readonly parked: readonly string[];
  /** A restored data dir that was never swapped in. */
  readonly halfBuilt: boolean;
}

/** What a restore that stopped half-way left on this host. */
export function restoreLeftovers(): Fact<RestoreLeftovers> {
  return {
    key: 'etcd:restore-leftovers',
    become: true,
    script: sh`for f in ${MANIFESTS}; do [ -f ${PARKED_MANIFESTS}/$f ] && echo "parked $f"; done; [ -d ${RESTORING} ] && echo half-built; true`,
    parse: (stdout) => {
      const lines = stdout.split('\n').filter(Boolean);
      return { parked: lines.filter((l) => l.startsWith('parked ')).map((l) => l.slice(7)), halfBuilt: lines.includes('half-built') };
    },
  };
}
