// The etcd snapshots a state store holds: every snapshot the controller saves while it holds the
// store's session (sealed with the state key), and the scheduled ones the control planes copy in
// (sealed for it, recipient-envelope.ts). Listed, and fetched back into the state folder's
// backups (opened and checked chunk by chunk), for `etcd snapshot list`, `fetch --from-store`
// and `restore --from-store`.
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { scheduledSnapshotPrefix, type FetchedSnapshot, type HostSnapshot } from '../../kubernetes/etcd/etcd-snapshot-files.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { RECIPIENT_SUFFIX } from '../../orchestrator/state-store/recipient-envelope.js';
import type { ListedObject } from '../../orchestrator/state-store/s3/s3-xml.js';
import { openFile, openRecipientFile } from '../../orchestrator/state-store/sealed-file.js';
import { getSealedFile } from '../../orchestrator/state-store/sealed-objects.js';
import { SCHEDULED_SNAPSHOTS_FOLDER } from '../../kubernetes/etcd/scheduled-snapshot-upload.js';
import { sha256File } from '../../orchestrator/util/sha256-file.js';
import { sealedSnapshotObjects } from './snapshot-retention.js';
import { SNAPSHOTS, storeOf, type StoreAccess } from './state-session.js';

/** The snapshots in the inventory's store, oldest first: those the controller sealed, and those the control planes sealed for the state key. */
export async function listStoredSnapshots(inventory: Inventory, env: Readonly<Record<string, string | undefined>>): Promise<HostSnapshot[]> {
  const store = await storeOf(inventory, env);
  const stored = (o: ListedObject, suffix: string): HostSnapshot => ({
    name: o.key.slice(o.key.lastIndexOf('/') + 1, -suffix.length),
    path: store.s3.describe(o.key),
    kind: 'stored',
    bytes: o.size,
    modifiedMs: o.lastModified.getTime(),
  });
  return [
    ...(await sealedSnapshotObjects(store.s3, `${store.prefix}${SNAPSHOTS}`)).map((o) => stored(o, '.kce')),
    ...(await controlPlaneCopies(store)).map((o) => stored(o, RECIPIENT_SUFFIX)),
  ].sort((a, b) => a.modifiedMs - b.modifiedMs);
}

/** The scheduled snapshots the control planes copied in (scheduled-snapshots/HOST/NAME.db.kcp). */
const controlPlaneCopies = (store: StoreAccess): Promise<ListedObject[]> =>
  store.s3.listEndingWith(`${store.prefix}${SCHEDULED_SNAPSHOTS_FOLDER}`, `.db${RECIPIENT_SUFFIX}`);

/** Snapshot `name` from the store, opened into `file` (default <stateDir>/backups/NAME); undefined when the store has none. */
export async function fetchStoredSnapshot(
  inventory: Inventory,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  file = join(inventory.stateDir, 'backups', name),
): Promise<FetchedSnapshot | undefined> {
  const store = await storeOf(inventory, env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fetched = async (key: string, opened: { bytes: number } | undefined): Promise<FetchedSnapshot | undefined> =>
    opened === undefined ? undefined : { remote: store.s3.describe(key), file, bytes: opened.bytes, sha256: await sha256File(file) };
  const key = `${store.prefix}${SNAPSHOTS}${name}.kce`;
  const own = await getSealedFile(store.s3, key, file, (sealed) => openFile(store.key, `${SNAPSHOTS}${name}`, sealed, file, store.s3.describe(key)));
  if (own !== undefined) return fetched(key, own);
  // A control plane's copy, only from the folder of the host its name says took it: a copy
  // that another control plane put in its own folder under that name is not this snapshot.
  const folders = `${store.prefix}${SCHEDULED_SNAPSHOTS_FOLDER}`;
  const copy = (await controlPlaneCopies(store)).find((o) => {
    const [host, object, ...more] = o.key.slice(folders.length).split('/');
    return more.length === 0 && object === `${name}${RECIPIENT_SUFFIX}` && host !== undefined && name.startsWith(scheduledSnapshotPrefix(host));
  });
  if (copy === undefined) return undefined;
  const statePath = copy.key.slice(store.prefix.length, -RECIPIENT_SUFFIX.length);
  return fetched(
    copy.key,
    await getSealedFile(store.s3, copy.key, file, (sealed) => openRecipientFile(store.key, statePath, sealed, file, store.s3.describe(copy.key))),
  );
}
