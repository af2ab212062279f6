// etcd snapshots: saved on a control plane with etcdctl (TLS, the healthcheck client), checked
// with etcdutl, copied to the controller (<stateDir>/backups/) and checked again there by
// sha256. Restoring is in etcd-restore.ts.
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execChecked, type Connection } from '../ssh/connection.js';
import { sh } from '../ssh/quote.js';
import { ETCDCTL } from './etcdctl.js';

export const HOST_BACKUP_DIR = '/var/lib/kcluster/backups';

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
