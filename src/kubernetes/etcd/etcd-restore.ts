// Restoring an etcd snapshot on every control plane at once (a member restored alone would
// form a cluster of its own). In phases, each on every control plane before the next:
//   1. upload the snapshot, check its sha256 and `etcdutl snapshot status` on the host;
//   2. stop the control plane: the four static-pod manifests move to /etc/kubernetes/restoring/
//      and the containers are waited for;
//   3. build each member's new data dir from the snapshot (its own name and peer URL, a new
//      cluster token) beside the current one;
//   4. swap the data dirs (the old one is kept as /var/lib/etcd.before-restore-TIME) and put
//      the manifests back.
// A failure in phases 1-3 changes nothing that stays: the manifests go back, the old data is
// untouched. The API servers start with the restored data (no stale watch cache).
import { basename } from 'node:path';
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { HOST_BACKUP_DIR } from './etcd-snapshot.js';
import { sha256File } from '../../orchestrator/util/sha256-file.js';

export interface RestoreMember {
  readonly connection: Connection;
  /** The etcd member name (the node name) and the address its peer URL uses. */
  readonly name: string;
  readonly address: string;
}

const MANIFESTS = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];
const PARKED = '/etc/kubernetes/restoring';

const onAll = (members: readonly RestoreMember[], step: (m: RestoreMember) => Promise<unknown>): Promise<unknown[]> => Promise.all(members.map(step));

async function stopControlPlane(m: RestoreMember): Promise<void> {
  await execChecked(
    m.connection,
    sh`set -e; mkdir -p ${PARKED}
for f in ${MANIFESTS}; do [ -f /etc/kubernetes/manifests/$f ] && mv /etc/kubernetes/manifests/$f ${PARKED}/$f; done
for i in $(seq 1 90); do crictl ps -q --name '^(etcd|kube-apiserver|kube-controller-manager|kube-scheduler)$' 2>/dev/null | grep -q . || exit 0; sleep 1; done
echo "the control-plane containers did not stop within 90 s" >&2; exit 1`,
    { become: true, label: 'stop the control plane for the restore', timeoutMs: 120_000 },
  );
}

async function startControlPlane(m: RestoreMember): Promise<void> {
  await execChecked(m.connection, sh`for f in ${MANIFESTS}; do [ -f ${PARKED}/$f ] && mv ${PARKED}/$f /etc/kubernetes/manifests/$f; done; rmdir ${PARKED} 2>/dev/null; true`, {
    become: true,
    label: 'start the control plane',
  });
}

export interface RestoreReport {
  readonly revision: number;
  readonly keys: number;
  /** Per host: where the previous data dir was kept. */
  readonly keptData: Readonly<Record<string, string>>;
}

export async function restoreEtcdSnapshot(members: readonly RestoreMember[], localFile: string, log: (line: string) => void): Promise<RestoreReport> {
  const remote = `${HOST_BACKUP_DIR}/${basename(localFile)}`;
  const expected = await sha256File(localFile);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const initialCluster = members.map((m) => `${m.name}=https://${m.address}:2380`).join(',');
  const token = `kcluster-restore-${stamp}`;

  let status = { revision: -1, totalKey: -1 };
  await onAll(members, async (m) => {
    await m.connection.uploadFile(localFile, remote, { mode: 0o600, owner: 'root', group: 'root', become: true, mkdirParents: true, sha256: expected, label: 'upload etcd snapshot' });
    const sum = (await execChecked(m.connection, sh`sha256sum < ${remote}`, { become: true, label: 'snapshot sha256' })).stdout.trim().split(/\s+/)[0];
    if (sum !== expected) throw new Error(`${m.connection.host}: the uploaded snapshot has sha256 ${sum}, the controller's ${expected}: retry`);
    const out = await execChecked(m.connection, sh`/usr/local/bin/etcdutl snapshot status ${remote} -w json`, { become: true, label: 'etcdutl snapshot status' });
    status = JSON.parse(out.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}') as typeof status;
  });
  log(`snapshot ${basename(localFile)} (sha256 ${expected}, revision ${status.revision}, ${status.totalKey} keys) is on ${members.length} control plane(s)`);

  await onAll(members, stopControlPlane).catch(async (error: Error) => {
    await onAll(members, startControlPlane).catch(() => undefined);
    throw error;
  });
  log('control plane stopped on every member');
  try {
    await onAll(members, (m) =>
      execChecked(
        m.connection,
        sh`rm -rf /var/lib/etcd.restoring && /usr/local/bin/etcdutl snapshot restore ${remote} --data-dir=/var/lib/etcd.restoring --name=${m.name} --initial-cluster=${initialCluster} --initial-cluster-token=${token} --initial-advertise-peer-urls=${`https://${m.address}:2380`} >/dev/null`,
        { become: true, label: 'etcdutl snapshot restore', timeoutMs: 300_000 },
      ),
    );
  } catch (error) {
    await onAll(members, (m) => execChecked(m.connection, sh`rm -rf /var/lib/etcd.restoring`, { become: true }).catch(() => undefined));
    await onAll(members, startControlPlane).catch(() => undefined);
    throw new Error(`${(error as Error).message}\nnothing was changed: the previous etcd data is in place and the control plane was started again`);
  }
  const kept = `/var/lib/etcd.before-restore-${stamp}`;
  await onAll(members, (m) => execChecked(m.connection, sh`set -e; [ -d /var/lib/etcd ] && mv /var/lib/etcd ${kept}; mv /var/lib/etcd.restoring /var/lib/etcd`, { become: true, label: 'swap the etcd data dir' }));
  await onAll(members, startControlPlane);
  log(`restored on ${members.map((m) => m.name).join(', ')}; the previous data is kept in ${kept} on each`);
  return { revision: status.revision, keys: status.totalKey, keptData: Object.fromEntries(members.map((m) => [m.name, kept])) };
}
