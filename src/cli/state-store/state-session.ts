// A command's hold on a cluster whose state is in a store (cluster.state, issue 41). Opening it
// takes the store's lease (one controller at a time, across machines), checks that the store
// is this cluster's and sealed with this key, and brings the state folder in line with the
// newest generation: the store wins, and a file only the folder has is moved aside, never
// uploaded unasked. `commit` publishes the tracked files when they changed (before the run's
// first change on a host, after each phase a command records, at the end); `close` commits and
// lets the lease go. A command nested in another (a phase run inside rotate-ca) shares its
// session. Without cluster.state there is no session: the state folder is the only copy.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { StateStoreSettings } from '../../kubernetes/inventory/cluster-settings.js';
import { envNamedAt } from '../../kubernetes/inventory/env-named-at.js';
import { inventoryKeyLocation } from '../../kubernetes/inventory/source-map.js';
import { GenerationStore, holdsExactly, holdsFile, type Manifest, type StateFile } from '../../orchestrator/state-store/generations.js';
import { acquireLease, keepRenewed, type HeldLease } from '../../orchestrator/state-store/lease.js';
import { setHeldRecipient } from '../../orchestrator/state-store/held-recipients.js';
import { setOffBoxCopy } from '../../orchestrator/state-store/off-box-copies.js';
import { PreconditionFailed, S3Client } from '../../orchestrator/state-store/s3/s3-client.js';
import { recipientOf, type Recipient } from '../../orchestrator/state-store/recipient-envelope.js';
import { putSealedFile } from '../../orchestrator/state-store/sealed-objects.js';
import {
  DEFAULT_PASSPHRASE_COST,
  StateKeyError,
  stateKeyFromEnv,
  stateKeyFromFile,
  stateKeyFromPassphrase,
  type PassphraseParameters,
  type StateKey,
} from '../../orchestrator/state-store/state-key.js';
import { JournalMirror } from './journal-mirror.js';
import { LogMirror } from './log-mirror.js';
import { pruneStoredSnapshots, type SnapshotRetention } from './snapshot-retention.js';
import { moveAside, readTracked, writeTracked } from './tracked-files.js';

export interface StateSession {
  /** s3://bucket/prefix, for messages. */
  readonly where: string;
  /** What hosts seal objects for the state key with (scheduled snapshots from the control planes). */
  readonly recipient: Recipient;
  /** Publishes the state folder's tracked files as a new generation when they changed. */
  commit(reason: string): Promise<void>;
  /** Commits, then (the outermost hold) stops renewing and lets the lease go. */
  close(reason: string): Promise<void>;
}

interface OpenSession {
  readonly session: StateSession;
  holds: number;
}

const open = new Map<string, OpenSession>();

/** The session a command in this process holds on this state folder, if any (a nested run shares it). */
export const sessionFor = (stateDir: string): StateSession | undefined => open.get(stateDir)?.session;

export interface SessionOptions {
  readonly command: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly say: (line: string) => void;
  /** Told when the lease is lost mid-run: the run must stop. */
  readonly onLost: (error: Error) => void;
}

const HEADER_KEY = 'kcluster-state.json';

interface StoreHeader {
  readonly format: 1;
  readonly cluster: string;
  readonly keyFingerprint: string;
  readonly created: string;
  /** With a passphrase (cluster.state.key.passphraseEnv): scrypt's salt and cost, which every controller needs. */
  readonly kdf?: PassphraseParameters;
}

function credentialsOf(inventory: Inventory, s3: StateStoreSettings['s3'], env: SessionOptions['env']) {
  const need = (name: string, key: string): string =>
    envNamedAt(inventory, env, name, ['cluster', 'state', 's3', key], "the store's credentials", ['cluster', 'state', 's3']);
  const token = env[s3.sessionTokenEnv];
  return {
    accessKeyId: need(s3.accessKeyIdEnv, 'accessKeyIdEnv'),
    secretAccessKey: need(s3.secretAccessKeyEnv, 'secretAccessKeyEnv'),
    ...(token !== undefined && token !== '' ? { sessionToken: token } : {}),
  };
}

async function readHeader(s3: S3Client, prefix: string): Promise<Partial<StoreHeader> | undefined> {
  const got = await s3.get(`${prefix}${HEADER_KEY}`);
  return got === undefined ? undefined : (JSON.parse(got.body.toString('utf8')) as Partial<StoreHeader>);
}

/** The state key from the inventory's source; a passphrase is derived with the store's recorded salt (a new store: a new salt). */
async function keyOf(
  inventory: Inventory,
  settings: StateStoreSettings,
  env: SessionOptions['env'],
  s3: S3Client,
): Promise<{ key: StateKey; kdf?: PassphraseParameters }> {
  const where = inventoryKeyLocation(inventory.file, ['cluster', 'state', 'key']);
  try {
    if ('file' in settings.key) return { key: stateKeyFromFile(settings.key.file) };
    if ('env' in settings.key) return { key: stateKeyFromEnv(settings.key.env, env) };
    const name = settings.key.passphraseEnv;
    const passphrase = env[name];
    if (passphrase === undefined || passphrase === '') throw new StateKeyError(`the environment variable ${name} is not set: set it to the store's passphrase`);
    const header = await readHeader(s3, settings.s3.prefix);
    if (header !== undefined && header.kdf === undefined)
      throw new StateKeyError(`${s3.describe(settings.s3.prefix)} was made with a key, not a passphrase: give that key (key.file or key.env)`);
    const kdf = header?.kdf ?? { salt: randomBytes(16).toString('base64'), ...DEFAULT_PASSPHRASE_COST };
    return { key: stateKeyFromPassphrase(passphrase, kdf, `the passphrase in ${name}`), kdf };
  } catch (error) {
    if (!(error instanceof StateKeyError)) throw error;
    throw new InputError(`${where}: ${error.message}`);
  }
}

export interface StoreAccess {
  readonly s3: S3Client;
  readonly generations: GenerationStore;
  readonly key: StateKey;
  /** A passphrase's salt and cost (recorded in a new store's header). */
  readonly kdf?: PassphraseParameters;
  readonly prefix: string;
  readonly where: string;
}

/** The store's client, generations and key for an inventory with cluster.state (no lease taken). */
export async function storeOf(inventory: Inventory, env: SessionOptions['env']): Promise<StoreAccess> {
  const settings = inventory.cluster.state;
  if (settings === undefined) throw new InputError(`${inventory.file}: no cluster.state: this cluster's state is only in ${inventory.stateDir}`);
  const s3 = new S3Client(
    { endpoint: settings.s3.endpoint, bucket: settings.s3.bucket, region: settings.s3.region, pathStyle: settings.s3.pathStyle },
    credentialsOf(inventory, settings.s3, env),
  );
  const { key, kdf } = await keyOf(inventory, settings, env, s3);
  return {
    s3,
    key,
    ...(kdf !== undefined ? { kdf } : {}),
    prefix: settings.s3.prefix,
    generations: new GenerationStore(s3, settings.s3.prefix, key),
    where: s3.describe(settings.s3.prefix),
  };
}

/** Where a store's cluster went (`kcluster state migrate`): a store holding one is never used again. */
const MOVED_KEY = 'kcluster-moved.json';

export interface MovedRecord {
  /** s3://bucket/prefix of the store the state moved to. */
  readonly to: string;
  readonly at: string;
  /** The generation of this store that was copied there. */
  readonly generation: number;
  readonly by: { readonly machine: string; readonly pid: number; readonly command: string };
}

export async function readMoved(s3: S3Client, prefix: string): Promise<MovedRecord | undefined> {
  const got = await s3.get(`${prefix}${MOVED_KEY}`);
  return got === undefined ? undefined : (JSON.parse(got.body.toString('utf8')) as MovedRecord);
}

export async function markMoved(store: Pick<StoreAccess, 's3' | 'prefix'>, record: MovedRecord): Promise<void> {
  await store.s3.put(`${store.prefix}${MOVED_KEY}`, Buffer.from(`${JSON.stringify(record, null, 2)}\n`));
}

/**
 * The store is this cluster's and sealed with this key (the header says so), or is made so when
 * new; a store whose cluster moved to another (`state migrate`) is refused with where it went.
 */
export async function claimStore(inventory: Inventory, store: StoreAccess): Promise<void> {
  const { s3, prefix, key } = store;
  const moved = await readMoved(s3, prefix);
  if (moved !== undefined)
    throw new InputError(
      `${s3.describe(prefix)} no longer holds the state of ${inventory.cluster.name}: it moved to ${moved.to} (generation ${moved.generation}, ${moved.at}, by ${moved.by.command} on ${moved.by.machine}): set cluster.state in ${inventory.file} to that store`,
    );
  const header = await readHeader(s3, prefix);
  if (header === undefined) {
    const made: StoreHeader = {
      format: 1,
      cluster: inventory.cluster.name,
      keyFingerprint: key.fingerprint,
      created: new Date().toISOString(),
      ...(store.kdf !== undefined ? { kdf: store.kdf } : {}),
    };
    // Of two controllers making a new store, one writes its header; the other reads it next.
    await s3.put(`${prefix}${HEADER_KEY}`, Buffer.from(`${JSON.stringify(made, null, 2)}\n`), { ifAbsent: true }).catch((error: unknown) => {
      if (!(error instanceof PreconditionFailed)) throw error;
    });
    return claimStore(inventory, store);
  }
  if (header.cluster !== inventory.cluster.name)
    throw new InputError(
      `${s3.describe(prefix)} holds the state of the cluster ${String(header.cluster)}, not ${inventory.cluster.name}: give each cluster its own cluster.state.s3.prefix`,
    );
  if (header.keyFingerprint !== key.fingerprint)
    throw new InputError(
      `${s3.describe(prefix)} is sealed with the state key ${String(header.keyFingerprint)}, and ${key.source} is ${key.fingerprint}: give the key this store was made with; nothing was read or changed`,
    );
}

/**
 * Brings the state folder in line with `head`: the store's files written where the folder's
 * (`local`, as already read) differ, files it lacks moved aside. The count of files brought.
 */
async function pull(
  stateDir: string,
  store: Pick<StoreAccess, 'key' | 'generations'>,
  head: Manifest,
  local: ReadonlyMap<string, StateFile>,
  say: (line: string) => void,
): Promise<number> {
  const differing = Object.keys(head.files).filter((path) => {
    const mine = local.get(path);
    return mine === undefined || !holdsFile(store.key, head.files[path], mine);
  });
  for (const file of await store.generations.files(head, differing)) writeTracked(stateDir, file);
  const at = new Date().toISOString().replace(/[:.]/g, '-');
  for (const path of local.keys()) {
    if (head.files[path] !== undefined) continue;
    say(`${path} is in the state folder but not in the store's generation ${head.generation}: moved to ${moveAside(stateDir, path, at)} (the store wins)`);
  }
  return differing.length;
}

export async function openStateSession(inventory: Inventory, options: SessionOptions): Promise<StateSession | undefined> {
  if (inventory.cluster.state === undefined) return undefined;
  const retention = inventory.cluster.state.snapshots;
  const unpublished = readUnpublished(inventory.stateDir);
  if (unpublished !== undefined)
    throw new InputError(
      `${inventory.stateDir} holds changes that ${unpublished.reason} could not publish to the state store (${unpublished.at}: ${unpublished.error}): publish them first with kcluster state push -i ${inventory.file} --yes, or, to take the store's state over them, remove ${unpublishedPath(inventory.stateDir)}`,
    );
  const held = open.get(inventory.stateDir);
  if (held !== undefined) {
    held.holds += 1;
    return nestedHold(held);
  }
  const store = await storeOf(inventory, options.env);
  const { s3, generations, key, prefix, where } = store;
  // A passphrase's salt is only known once a new store's header is written: derived again from it if another controller wrote it first.
  await claimStore(inventory, store);
  const lease: HeldLease = await acquireLease(s3, prefix, { command: options.command, ttlSeconds: inventory.cluster.state.leaseSeconds });
  if (lease.tookOverFrom !== undefined)
    options.say(
      `took over the lease of ${lease.tookOverFrom.command} (pid ${lease.tookOverFrom.pid} on ${lease.tookOverFrom.machine}, started ${lease.tookOverFrom.started}): it stopped renewing it; kcluster status shows what that run left`,
    );
  const stopRenewing = keepRenewed(lease, (inventory.cluster.state.leaseSeconds * 1000) / 3, options.onLost);
  const journal = new JournalMirror(s3, prefix, key, inventory.stateDir);
  const logs = new LogMirror(s3, prefix, key, inventory.stateDir, Date.now());
  let head: Manifest | undefined;
  try {
    const runs = await journal.pull();
    if (runs > 0) options.say(`the journal of ${runs} run(s) made on other controllers brought from ${where} (kcluster status reads it)`);
    head = await generations.head();
    if (head !== undefined) {
      const local = new Map(readTracked(inventory.stateDir).map((f) => [f.path, f]));
      const brought = await pull(inventory.stateDir, store, head, local, options.say);
      if (brought > 0) options.say(`state from ${where} generation ${head.generation}: ${brought} file(s) brought into ${inventory.stateDir}`);
    }
  } catch (error) {
    stopRenewing();
    await lease.release().catch(() => undefined);
    throw error;
  }
  const by = { machine: hostname(), pid: process.pid, command: options.command };
  const commit = async (reason: string): Promise<void> => {
    // The journal first: what this run has done so far is in the store whatever follows.
    await journal.push();
    const files = readTracked(inventory.stateDir);
    if (!holdsExactly(key, head, files)) {
      head = await generations.commit(head, files, by, reason);
      options.say(`state published to ${where} as generation ${head.generation} (${reason})`);
    }
    // A log is for reading later: one the store did not take is said, and the run goes on.
    await logs.push().catch((error: Error) => options.say(`the run's log was not copied to ${where}: ${error.message}`));
  };
  const entry: OpenSession = {
    holds: 1,
    session: {
      where,
      recipient: recipientOf(key),
      commit,
      close: async (reason) => {
        entry.holds -= 1;
        if (entry.holds > 0) return commit(reason);
        open.delete(inventory.stateDir);
        setOffBoxCopy(inventory.stateDir, undefined);
        setHeldRecipient(inventory.stateDir, undefined);
        try {
          await commit(reason);
        } catch (error) {
          // The changes stay in the folder, and the next command refuses to take the store's
          // state over them until they are published (kcluster state push).
          writeUnpublished(inventory.stateDir, { reason, at: new Date().toISOString(), error: (error as Error).message });
          throw error;
        } finally {
          stopRenewing();
          await lease.release().catch(() => undefined);
        }
      },
    },
  };
  open.set(inventory.stateDir, entry);
  setOffBoxCopy(inventory.stateDir, (file) => copySnapshotToStore(s3, prefix, key, where, file, retention));
  setHeldRecipient(inventory.stateDir, entry.session.recipient);
  return entry.session;
}

/** Where snapshots are in a store: snapshots/<file name>.kce, sealed as the state's snapshots/<file name>. */
export const SNAPSHOTS = 'snapshots/';

/** An etcd snapshot saved on the controller, sealed (streamed) and copied into the store. */
async function copySnapshotToStore(s3: S3Client, prefix: string, key: StateKey, where: string, file: string, retention: SnapshotRetention): Promise<string> {
  const name = basename(file);
  const stored = `${prefix}${SNAPSHOTS}${name}.kce`;
  await putSealedFile(s3, key, `${SNAPSHOTS}${name}`, file, stored);
  const pruned = await pruneStoredSnapshots(s3, `${prefix}${SNAPSHOTS}`, retention, stored);
  return `sealed copy in ${where}${SNAPSHOTS}${name}.kce${pruned !== undefined ? `; ${pruned}` : ''}`;
}

function nestedHold(held: OpenSession): StateSession {
  let closed = false;
  return {
    where: held.session.where,
    recipient: held.session.recipient,
    commit: (reason) => held.session.commit(reason),
    close: async (reason) => {
      if (closed) return;
      closed = true;
      await held.session.close(reason);
    },
  };
}

/** A run whose last publish failed leaves this in the state folder (see close). */
export const unpublishedPath = (stateDir: string): string => join(stateDir, 'unpublished.json');

interface Unpublished {
  readonly reason: string;
  readonly at: string;
  readonly error: string;
}

function writeUnpublished(stateDir: string, what: Unpublished): void {
  writeFileSync(unpublishedPath(stateDir), `${JSON.stringify(what, null, 2)}\n`, { mode: 0o600 });
}

function readUnpublished(stateDir: string): Unpublished | undefined {
  try {
    return JSON.parse(readFileSync(unpublishedPath(stateDir), 'utf8')) as Unpublished;
  } catch {
    return undefined;
  }
}
