// etcd snapshots: saved on a control plane with etcdctl (TLS, the healthcheck client), checked
// with etcdutl, copied to the controller (<stateDir>/backups/) and checked again there by
// sha256. Restored on every control plane from the controller's copy.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execChecked, type Connection } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';

export const HOST_BACKUP_DIR = '/var/lib/kcluster/backups';
const ETCDCTL = sh`ETCDCTL_API=3 /usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key`;

export interface SavedSnapshot {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly revision: number;
  readonly keys: number;
}

export function snapshotName(date: Date): string {
  return `etcd-${date.toISOString().replace(/[:.]/g, '-')}.db`;
}

export async function saveEtcdSnapshot(connection: Connection, stateDir: string, name: string): Promise<SavedSnapshot> {
  const remote = `${HOST_BACKUP_DIR}/${name}`;
  await execChecked(connection, sh`umask 077; mkdir -p ${HOST_BACKUP_DIR} && ${ETCDCTL} snapshot save ${remote} >/dev/null`, { become: true, label: 'etcd snapshot save', timeoutMs: 120_000 });
  const status = await execChecked(connection, sh`/usr/local/bin/etcdutl snapshot status ${remote} -w json`, { become: true, label: 'etcd snapshot status' });
  const parsed = JSON.parse(status.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}') as { revision?: number; totalKey?: number };
  const sum = await execChecked(connection, sh`sha256sum < ${remote}`, { become: true, label: 'etcd snapshot sha256' });
  const expected = sum.stdout.trim().split(/\s+/)[0] ?? '';
  // Binary-safe over the exec channel: base64 on the host, decoded here.
  const data = await execChecked(connection, sh`base64 -w0 < ${remote}`, { become: true, label: 'etcd snapshot copy', timeoutMs: 300_000 });
  const bytes = Buffer.from(data.stdout.trim(), 'base64');
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) throw new Error(`the etcd snapshot copied from ${connection.host} has sha256 ${actual}, the host's has ${expected}: the copy is corrupt; retry`);
  const dir = join(stateDir, 'backups');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  await writeFile(`${file}.tmp`, bytes, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return { file, bytes: bytes.length, sha256: actual, revision: parsed.revision ?? -1, keys: parsed.totalKey ?? -1 };
}

/**
 * Restore a snapshot on one control plane: etcd's static pod is stopped (manifest moved
 * aside), a new data dir is built from the snapshot with this member's identity, swapped in
 * (the old one kept as /var/lib/etcd.before-restore-<time>), and etcd started again.
 */
export async function restoreEtcdSnapshot(connection: Connection, localFile: string, member: { name: string; address: string }, initialCluster: string, clusterToken: string): Promise<void> {
  const remote = `${HOST_BACKUP_DIR}/${basename(localFile)}`;
  await connection.writeFile(remote, await readFile(localFile), { mode: 0o600, owner: 'root', group: 'root', become: true, mkdirParents: true, label: 'upload etcd snapshot' });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  await execChecked(
    connection,
    sh`set -e
m=/etc/kubernetes/manifests/etcd.yaml; parked=/etc/kubernetes/etcd.yaml.restoring
[ -f "$m" ] && mv "$m" "$parked"
for i in $(seq 1 60); do crictl ps --name '^etcd$' -q 2>/dev/null | grep -q . || break; sleep 1; done
rm -rf /var/lib/etcd.restoring
/usr/local/bin/etcdutl snapshot restore ${remote} --data-dir=/var/lib/etcd.restoring --name=${member.name} --initial-cluster=${initialCluster} --initial-cluster-token=${clusterToken} --initial-advertise-peer-urls=${`https://${member.address}:2380`} >/dev/null
[ -d /var/lib/etcd ] && mv /var/lib/etcd ${`/var/lib/etcd.before-restore-${stamp}`}
mv /var/lib/etcd.restoring /var/lib/etcd
mv "$parked" "$m"
# The API server's watch cache describes the old data: restart it once etcd is back.
crictl ps --name '^kube-apiserver$' -q 2>/dev/null | xargs -r crictl stop >/dev/null`,
    { become: true, label: 'etcd snapshot restore', timeoutMs: 180_000 },
  );
}
