// What a control plane needs to copy its scheduled etcd snapshots into the state store
// (cluster.state.scheduledSnapshots): the credential, read from the controller's environment at
// apply time, and the uploader's settings file (/etc/kcluster/snapshot-upload.json, 0600), which
// names the store, this host's folder in it, the public key it seals for and the retention.
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { Recipient } from '../../orchestrator/state-store/recipient-envelope.js';
import { envNamedAt } from '../inventory/env-named-at.js';
import { SCHEDULED_SNAPSHOT_DIR, scheduledSnapshotPrefix } from './etcd-snapshot-files.js';

export const SNAPSHOT_UPLOAD_CONFIG = '/etc/kcluster/snapshot-upload.json';
export const SNAPSHOT_UPLOADER = '/usr/local/bin/kcluster-snapshot-upload';
/** Under the store's prefix: scheduled-snapshots/HOST/NAME.db.kcp. */
export const SCHEDULED_SNAPSHOTS_FOLDER = 'scheduled-snapshots/';

export interface SnapshotUploadCredential {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** Everything the role writes on the control planes: the credential and the recipient the store session gives. */
export interface SnapshotUploadInputs {
  readonly credential: SnapshotUploadCredential;
  readonly recipient: Recipient;
}

/** Whether the control planes copy their scheduled snapshots into the store. */
export const uploadsScheduledSnapshots = (inventory: Inventory): boolean =>
  inventory.cluster.state?.scheduledSnapshots !== undefined && inventory.cluster.etcdSnapshots.enabled;

/** The control planes' credential from `env`; undefined without cluster.state.scheduledSnapshots; an InputError at the key naming a variable that is not set. */
export function snapshotUploadCredential(inventory: Inventory, env: Readonly<Record<string, string | undefined>>): SnapshotUploadCredential | undefined {
  const settings = inventory.cluster.state?.scheduledSnapshots;
  if (settings === undefined || !uploadsScheduledSnapshots(inventory)) return undefined;
  const need = (name: string, key: string): string =>
    envNamedAt(
      inventory,
      env,
      name,
      ['cluster', 'state', 'scheduledSnapshots', key],
      'the credential the control planes copy their scheduled snapshots into the store with (it is written to each of them)',
    );
  return { accessKeyId: need(settings.accessKeyIdEnv, 'accessKeyIdEnv'), secretAccessKey: need(settings.secretAccessKeyEnv, 'secretAccessKeyEnv') };
}

/** The uploader's settings file for `host`, as JSON text (it holds the credential: written 0600, never shown). */
export function snapshotUploadConfig(inventory: Inventory, host: string, inputs: SnapshotUploadInputs): string {
  const state = inventory.cluster.state;
  const upload = state?.scheduledSnapshots;
  if (state === undefined || upload === undefined) throw new Error('snapshotUploadConfig without cluster.state.scheduledSnapshots');
  const config = {
    endpoint: upload.endpoint,
    bucket: state.s3.bucket,
    region: state.s3.region,
    pathStyle: state.s3.pathStyle,
    accessKeyId: inputs.credential.accessKeyId,
    secretAccessKey: inputs.credential.secretAccessKey,
    storePrefix: state.s3.prefix,
    folder: `${SCHEDULED_SNAPSHOTS_FOLDER}${host}/`,
    recipient: inputs.recipient.publicKey,
    kid: inputs.recipient.kid,
    localDir: SCHEDULED_SNAPSHOT_DIR,
    namePrefix: scheduledSnapshotPrefix(host),
    keep: upload.keep,
    ...(upload.maxAgeDays !== undefined ? { maxAgeDays: upload.maxAgeDays } : {}),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
