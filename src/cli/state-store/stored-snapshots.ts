// The etcd snapshots a state store holds (copied there sealed by every snapshot the controller
// saves while it holds the store's session): listed, and fetched back into the state folder's
// backups (opened and checked chunk by chunk), for `etcd snapshot list`, `fetch --from-store`
// and `restore --from-store`.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { FetchedSnapshot, HostSnapshot } from '../../kubernetes/etcd/etcd-snapshot-files.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { openFile } from '../../orchestrator/state-store/sealed-file.js';
import { sha256File } from '../../orchestrator/util/sha256-file.js';
import { sealedSnapshotObjects } from './snapshot-retention.js';
import { SNAPSHOTS, storeOf } from './state-session.js';

/** The snapshots in the inventory's store, oldest first. */
export async function listStoredSnapshots(inventory: Inventory, env: Readonly<Record<string, string | undefined>>): Promise<HostSnapshot[]> {
  const store = await storeOf(inventory, env);
  const folder = `${store.prefix}${SNAPSHOTS}`;
  return (await sealedSnapshotObjects(store.s3, folder))
    .map((o): HostSnapshot => ({
      name: o.key.slice(folder.length, -'.kce'.length),
      path: store.s3.describe(o.key),
      kind: 'stored',
      bytes: o.size,
      modifiedMs: o.lastModified.getTime(),
    }))
    .sort((a, b) => a.modifiedMs - b.modifiedMs);
}

/** Snapshot `name` from the store, opened into `file` (default <stateDir>/backups/NAME); undefined when the store has none. */
export async function fetchStoredSnapshot(
  inventory: Inventory,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  file = join(inventory.stateDir, 'backups', name),
): Promise<FetchedSnapshot | undefined> {
  const store = await storeOf(inventory, env);
  const key = `${store.prefix}${SNAPSHOTS}${name}.kce`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const sealed = `${file}.kce.download`;
  try {
    if (!(await store.s3.getFile(key, sealed))) return undefined;
    const { bytes } = await openFile(store.key, `${SNAPSHOTS}${name}`, sealed, file, store.s3.describe(key));
    return { remote: store.s3.describe(key), file, bytes, sha256: await sha256File(file) };
  } finally {
    await rm(sealed, { force: true });
  }
}
