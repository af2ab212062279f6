// etcd snapshots: saved on a control plane with etcdctl (TLS, the healthcheck client), checked
// with etcdutl, copied to the controller (<stateDir>/backups/) over SFTP, streamed to disk, and
// checked again there by sha256. Restoring is in etcd-restore.ts.
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { ETCDCTL } from './etcdctl.js';
import { offBoxCopyFor } from '../../orchestrator/state-store/off-box-copies.js';

export const HOST_BACKUP_DIR = '/var/lib/kcluster/backups';

export interface SavedSnapshot {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly revision: number;
  readonly keys: number;
  /** Where its copy off the box went (a state store), when there is one. */
  readonly offBox?: string;
}

/** What a saved snapshot is, for a log line or a summary: "N bytes, revision R, K keys, sha256 S". */
export function savedSnapshotFigures(saved: SavedSnapshot): string {
  return `${saved.bytes} bytes, revision ${saved.revision}, ${saved.keys} keys, sha256 ${saved.sha256}${saved.offBox !== undefined ? `; ${saved.offBox}` : ''}`;
}

export function snapshotName(date: Date): string {
  return `etcd-${date.toISOString().replace(/[:.]/g, '-')}.db`;
}

export async function saveEtcdSnapshot(connection: Connection, stateDir: string, name: string): Promise<SavedSnapshot> {
  const remote = `${HOST_BACKUP_DIR}/${name}`;
  await execChecked(connection, sh`umask 077; mkdir -p ${HOST_BACKUP_DIR} && ${ETCDCTL} snapshot save ${remote} >/dev/null`, {
    become: true,
    label: 'etcd snapshot save',
    timeoutMs: 120_000,
  });
  const status = await execChecked(connection, sh`/usr/local/bin/etcdutl snapshot status ${remote} -w json`, { become: true, label: 'etcd snapshot status' });
  const parsed = JSON.parse(
    status.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop() ?? '{}',
  ) as { revision?: number; totalKey?: number };
  // Streamed to disk over SFTP (a snapshot can be gigabytes), then checked against the host's sum.
  const dir = join(stateDir, 'backups');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  const copied = await copySnapshotToController(connection, remote, file);
  // With a state store, the snapshot is in it too before this step is done: no change follows without it.
  const offBox = offBoxCopyFor(stateDir);
  const stored = offBox !== undefined ? await offBox(file) : undefined;
  return { file, ...copied, revision: parsed.revision ?? -1, keys: parsed.totalKey ?? -1, ...(stored !== undefined ? { offBox: stored } : {}) };
}

/**
 * A snapshot on the host streamed to `file` on the controller over SFTP (through `file`.tmp,
 * renamed once its sha256 matches the host's, 0600): a corrupt copy is never left at `file`.
 */
export async function copySnapshotToController(connection: Connection, remote: string, file: string): Promise<{ bytes: number; sha256: string }> {
  const sum = await execChecked(connection, sh`sha256sum < ${remote}`, { become: true, label: 'etcd snapshot sha256' });
  const expected = sum.stdout.trim().split(/\s+/)[0] ?? '';
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const copied = await connection.downloadFile(remote, `${file}.tmp`, { become: true, label: 'etcd snapshot copy' });
  if (copied.sha256 !== expected) {
    await rm(`${file}.tmp`, { force: true });
    throw new Error(
      `the etcd snapshot ${remote} copied from ${connection.host} has sha256 ${copied.sha256}, the host's has ${expected}: the copy is corrupt; retry`,
    );
  }
  await chmod(`${file}.tmp`, 0o600);
  await rename(`${file}.tmp`, file);
  return { bytes: copied.bytes, sha256: copied.sha256 };
}
