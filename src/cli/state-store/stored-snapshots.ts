// The etcd snapshots a state store holds: every snapshot the controller saves while it holds the
// store's session (sealed with the state key), and the scheduled ones the control planes copy in
// (sealed for it, recipient-envelope.ts). Listed, and fetched back into the state folder's
// backups (opened and checked chunk by chunk), for `etcd snapshot list`, `fetch --from-store`
// and `restore --from-store`.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { scheduledSnapshotPrefix, type FetchedSnapshot, type HostSnapshot } from '../../kubernetes/etcd/etcd-snapshot-files.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { RECIPIENT_SUFFIX } from '../../orchestrator/state-store/recipient-envelope.js';
import type { ListedObject } from '../../orchestrator/state-store/s3/s3-xml.js';
import { openFile, openRecipientFile } from '../../orchestrator/state-store/sealed-file.js';
import { SCHEDULED_SNAPSHOTS_FOLDER } from '../../kubernetes/etcd/scheduled-snapshot-upload.js';
import { sha256File } from '../../orchestrator/util/sha256-file.js';
import { sealedSnapshotObjects } from './snapshot-retention.js';
import { SNAPSHOTS, storeOf, type StoreAccess } from './state-session.js';

/** The snapshots in the inventory's store, oldest first: those the controller sealed, and those the control planes sealed for the state key. */
export async function listStoredSnapshots(inventory: Inventory, env: Readonly<Record<string, string | undefined>>): Promise<HostSnapshot[]> {
  const store = await storeOf(inventory, env);
  const folder = `${store.prefix}${SNAPSHOTS}`;
  const fromController = (await sealedSnapshotObjects(store.s3, folder)).map((o): HostSnapshot => ({
    name: o.key.slice(folder.length, -'.kce'.length),
    path: store.s3.describe(o.key),
    kind: 'stored',
    bytes: o.size,
    modifiedMs: o.lastModified.getTime(),
  }));
  const fromControlPlanes = (await controlPlaneCopies(store)).map((o): HostSnapshot => ({
    name: o.key.slice(o.key.lastIndexOf('/') + 1, -RECIPIENT_SUFFIX.length),
    path: store.s3.describe(o.key),
    kind: 'stored',
    bytes: o.size,
    modifiedMs: o.lastModified.getTime(),
  }));
  return [...fromController, ...fromControlPlanes].sort((a, b) => a.modifiedMs - b.modifiedMs);
}

/** The scheduled snapshots the control planes copied in (scheduled-snapshots/HOST/NAME.db.kcp). */
async function controlPlaneCopies(store: StoreAccess): Promise<ListedObject[]> {
  const found: ListedObject[] = [];
  for await (const o of store.s3.list(`${store.prefix}${SCHEDULED_SNAPSHOTS_FOLDER}`)) if (o.key.endsWith(`.db${RECIPIENT_SUFFIX}`)) found.push(o);
  return found;
}

/** Snapshot `name` from the store, opened into `file` (default <stateDir>/backups/NAME); undefined when the store has none. */
export async function fetchStoredSnapshot(
  inventory: Inventory,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  file = join(inventory.stateDir, 'backups', name),
): Promise<FetchedSnapshot | undefined> {
  const store = await storeOf(inventory, env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const sealed = `${file}.sealed.download`;
  try {
    const key = `${store.prefix}${SNAPSHOTS}${name}.kce`;
    if (await store.s3.getFile(key, sealed)) {
      const { bytes } = await openFile(store.key, `${SNAPSHOTS}${name}`, sealed, file, store.s3.describe(key));
      return { remote: store.s3.describe(key), file, bytes, sha256: await sha256File(file) };
    }
    // A control plane's copy, only from the folder of the host its name says took it: a copy
    // that another control plane put in its own folder under that name is not this snapshot.
    const folders = `${store.prefix}${SCHEDULED_SNAPSHOTS_FOLDER}`;
    const copy = (await controlPlaneCopies(store)).find((o) => {
      const [host, file, ...more] = o.key.slice(folders.length).split('/');
      return more.length === 0 && file === `${name}${RECIPIENT_SUFFIX}` && host !== undefined && name.startsWith(scheduledSnapshotPrefix(host));
    });
    if (copy === undefined || !(await store.s3.getFile(copy.key, sealed))) return undefined;
    const statePath = copy.key.slice(store.prefix.length, -RECIPIENT_SUFFIX.length);
    const { bytes } = await openRecipientFile(store.key, statePath, sealed, file, store.s3.describe(copy.key));
    return { remote: store.s3.describe(copy.key), file, bytes, sha256: await sha256File(file) };
  } finally {
    await rm(sealed, { force: true });
  }
}
