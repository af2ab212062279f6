// The etcd snapshots kept on a control plane: those `kcluster etcd snapshot save` took (and
// restore uploaded) in /var/lib/kcluster/backups, the scheduled ones
// (roles/etcd-snapshot-schedule) in its scheduled/ folder. Listed with one read-only command per
// host; one is fetched to the controller over SFTP with its sha256 checked
// (copySnapshotToController, the same copy `save` makes).
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { copySnapshotToController, HOST_BACKUP_DIR } from './etcd-snapshot.js';

export const SCHEDULED_SNAPSHOT_DIR = `${HOST_BACKUP_DIR}/scheduled`;

/** The file name a scheduled snapshot of `host` starts with (then a UTC time, then .db). */
export const scheduledSnapshotPrefix = (host: string): string => `etcd-scheduled-${host}-`;

/** saved (by kcluster, on a control plane), scheduled (by its timer), stored (sealed in the state store, issue 41). */
export type SnapshotKind = 'saved' | 'scheduled' | 'stored';

export interface HostSnapshot {
  readonly name: string;
  readonly path: string;
  readonly kind: SnapshotKind;
  readonly bytes: number;
  /** Modification time, ms since the epoch. */
  readonly modifiedMs: number;
}

/** A snapshot's name as the commands take it: a file name, no folder, ending .db. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*\.db$/;

/** One line per snapshot file: size, mtime (s), path. Read-only. */
export const LIST_SNAPSHOTS = sh`for d in ${HOST_BACKUP_DIR} ${SCHEDULED_SNAPSHOT_DIR}; do
  [ -d "$d" ] || continue
  for f in "$d"/*.db; do if [ -f "$f" ] && [ ! -L "$f" ]; then stat -c '%s %Y %n' -- "$f"; fi; done
done`;

/** Pure: the output of LIST_SNAPSHOTS, newest first. */
export function parseSnapshotList(stdout: string): HostSnapshot[] {
  const found: HostSnapshot[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\d+) (\d+) (\/.+)$/.exec(line.trim());
    if (!m) continue;
    const path = m[3]!;
    const slash = path.lastIndexOf('/');
    found.push({
      name: path.slice(slash + 1),
      path,
      kind: path.slice(0, slash) === SCHEDULED_SNAPSHOT_DIR ? 'scheduled' : 'saved',
      bytes: Number(m[1]),
      modifiedMs: Number(m[2]) * 1000,
    });
  }
  return found.sort((a, b) => b.modifiedMs - a.modifiedMs || a.name.localeCompare(b.name));
}

export async function listHostSnapshots(connection: Connection): Promise<HostSnapshot[]> {
  const result = await execChecked(connection, LIST_SNAPSHOTS, { become: true, label: 'etcd snapshot list' });
  return parseSnapshotList(result.stdout);
}

export interface FetchedSnapshot {
  readonly remote: string;
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
}

export class SnapshotNotFoundError extends Error {
  override readonly name = 'SnapshotNotFoundError';
}

/**
 * Snapshot `name` of the host (either folder) copied to `localFile` (0600, written whole or not
 * at all) after etcdutl read it there; its sha256 compared with the host's.
 */
export async function fetchHostSnapshot(connection: Connection, name: string, localFile: string): Promise<FetchedSnapshot> {
  if (!SNAPSHOT_NAME.test(name))
    throw new SnapshotNotFoundError(`"${name}" is not a snapshot name (a file name ending .db, as kcluster etcd snapshot list prints it)`);
  const snapshots = await listHostSnapshots(connection);
  const found = snapshots.find((s) => s.name === name);
  if (!found) {
    const names = snapshots.map((s) => s.name);
    throw new SnapshotNotFoundError(
      `${connection.host} has no snapshot ${name} in ${HOST_BACKUP_DIR} or ${SCHEDULED_SNAPSHOT_DIR} (${names.length > 0 ? `it has ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}` : 'it has none'}); see kcluster etcd snapshot list`,
    );
  }
  await execChecked(connection, sh`/usr/local/bin/etcdutl snapshot status ${found.path} -w json`, { become: true, label: 'etcd snapshot status' });
  const copied = await copySnapshotToController(connection, found.path, localFile);
  return { remote: found.path, file: localFile, ...copied };
}
