// How many etcd snapshots a state store keeps (cluster.state.snapshots): after each copy into
// it, the newest `keep` stay and, with maxAgeDays, any older than that go too; the snapshot just
// copied always stays, so a store never ends a save emptier than it began.
import type { ListedObject } from '../../orchestrator/state-store/s3/s3-xml.js';
import type { S3Client } from '../../orchestrator/state-store/s3/s3-client.js';

export interface SnapshotRetention {
  readonly keep: number;
  readonly maxAgeDays?: number;
}

const DAY_MS = 24 * 3600 * 1000;

/** Pure: the stored snapshots to delete, oldest first. */
export function snapshotsToPrune(stored: readonly ListedObject[], policy: SnapshotRetention, nowMs: number, justWritten: string): ListedObject[] {
  // The one just copied counts as the newest whatever its listed time (a listing may lag a write).
  const others = stored.filter((o) => o.key !== justWritten);
  const newestFirst = [undefined, ...others.sort((a, b) => b.lastModified.getTime() - a.lastModified.getTime() || b.key.localeCompare(a.key))];
  const tooOld = (o: ListedObject): boolean => policy.maxAgeDays !== undefined && nowMs - o.lastModified.getTime() > policy.maxAgeDays * DAY_MS;
  return newestFirst.filter((o, i): o is ListedObject => o !== undefined && (i >= policy.keep || tooOld(o))).reverse();
}

/** The sealed etcd snapshots (NAME.db.kce) under `folder`, snapshots/ of a store, in key order. */
export const sealedSnapshotObjects = (s3: S3Client, folder: string): Promise<ListedObject[]> => s3.listEndingWith(folder, '.db.kce');

/** Deletes what the policy no longer keeps under `folder` (snapshots/ of the store); says what went. */
export async function pruneStoredSnapshots(s3: S3Client, folder: string, policy: SnapshotRetention, justWritten: string): Promise<string | undefined> {
  const prune = snapshotsToPrune(await sealedSnapshotObjects(s3, folder), policy, Date.now(), justWritten);
  for (const o of prune) await s3.delete(o.key);
  if (prune.length === 0) return undefined;
  const rule = `the newest ${policy.keep} kept${policy.maxAgeDays !== undefined ? `, none older than ${policy.maxAgeDays} days` : ''}`;
  return `${prune.length} older snapshot(s) removed from the store (${rule}: cluster.state.snapshots)`;
}
