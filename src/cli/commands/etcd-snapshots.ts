// `kcluster etcd snapshot list -i FILE [-o text|json]`: every etcd snapshot kept on each control
// plane (taken by `save`, uploaded by `restore`, or scheduled: roles/etcd-snapshot-schedule),
// with its name, age and size; one read-only command per control plane, all in parallel. An
// unreachable host is named with the reason (exit 5) without hiding what the others returned;
// with a state store (cluster.state), its sealed copies too, as the host "store".
// `kcluster etcd snapshot fetch -i FILE --from HOST NAME [--file PATH]`: one of them copied to
// the controller (<stateDir>/backups/NAME, or PATH) over SFTP, read by etcdutl on the host
// first and its sha256 compared with the host's (the copy `save` makes); `--from-store NAME`:
// the store's copy downloaded and opened chunk by chunk.
import { resolve, join } from 'node:path';
import type { CliContext } from '../context.js';
import { controllerConnector } from '../controller-connector.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import {
  fetchHostSnapshot,
  listHostSnapshots,
  SNAPSHOT_NAME,
  SnapshotNotFoundError,
  type FetchedSnapshot,
  type HostSnapshot,
} from '../../kubernetes/etcd/etcd-snapshot-files.js';
import { topologyOf } from '../../kubernetes/cluster/topology.js';
import type { HostSettings, Inventory } from '../../orchestrator/inventory/model.js';
import { UnreachableError, type Connection } from '../../orchestrator/ssh/connection.js';
import { detailFor } from '../../orchestrator/ssh/host-error.js';
import { textTable } from '../../orchestrator/util/text-table.js';
import { readOnEachHost } from '../read-on-each-host.js';
import { isStoreRefusal } from '../../orchestrator/state-store/store-refusal.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { fetchStoredSnapshot, listStoredSnapshots } from '../state-store/stored-snapshots.js';

export interface SnapshotListOptions {
  readonly inventory: string;
  readonly output?: 'text' | 'json';
}

export interface SnapshotFetchOptions {
  readonly inventory: string;
  readonly from?: string;
  readonly fromStore?: boolean;
  readonly file?: string;
  readonly output?: 'text' | 'json';
}

interface HostListing {
  readonly host: string;
  readonly status: 'ok' | 'unreachable' | 'failed';
  readonly error?: string;
  readonly snapshots: readonly HostSnapshot[];
}

const err = (cli: CliContext, line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);

/** The inventory's control planes, or undefined with the problem reported (exit 2). */
function controlPlanesOf(cli: CliContext, inventory: Inventory): HostSettings[] | undefined {
  try {
    return [...topologyOf(inventory).controlPlanes];
  } catch (error) {
    err(cli, `${inventory.file}: ${(error as Error).message}`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
}

function unreachableReason(host: string, error: unknown): string {
  return error instanceof UnreachableError && error.host === host ? error.reason : detailFor(host, error);
}

/** Pure: "3d4h", "5h12m", "7m", "12s" (the largest two units; never negative). */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const i = units.findIndex(([, n]) => s >= n);
  if (i < 0) return '0s';
  const [u1, n1] = units[i]!;
  const first = `${Math.floor(s / n1)}${u1}`;
  const next = units[i + 1];
  if (!next || u1 === 'm' || u1 === 's') return first;
  const rest = Math.floor((s % n1) / next[1]);
  return rest > 0 ? `${first}${rest}${next[0]}` : first;
}

/** Pure: bytes as the tables show them (KiB, MiB, GiB with one decimal). */
export function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i += 1;
  }
  return i === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[i]}`;
}

/** Pure: the text table, one line per snapshot, grouped by host in inventory order, newest first. */
export function snapshotTable(listings: readonly HostListing[], nowMs: number): string {
  const rows = [['HOST', 'NAME', 'KIND', 'AGE', 'SIZE']];
  for (const l of listings) for (const s of l.snapshots) rows.push([l.host, s.name, s.kind, formatAge(nowMs - s.modifiedMs), formatSize(s.bytes)]);
  return textTable(rows);
}

export async function snapshotList(cli: CliContext, options: SnapshotListOptions): Promise<void> {
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  const controlPlanes = controlPlanesOf(cli, inventory);
  if (!controlPlanes) return;
  const listings: HostListing[] = (await readOnEachHost(cli, inventory, controlPlanes, 'cannot list its etcd snapshots', listHostSnapshots)).map((r) =>
    r.status === 'ok' ? { host: r.host, status: 'ok', snapshots: r.value } : { host: r.host, status: r.status, error: r.error, snapshots: [] },
  );
  // The state store's, listed as a host of its own ("store"): what outlives every control plane.
  if (inventory.cluster.state !== undefined) listings.push(await storeListing(cli, inventory));
  const now = Date.now();
  if (options.output === 'json') {
    const hosts = listings.map((l) => ({
      host: l.host,
      status: l.status,
      ...(l.error ? { error: l.error } : {}),
      snapshots: l.snapshots.map((s) => ({
        name: s.name,
        path: s.path,
        kind: s.kind,
        bytes: s.bytes,
        modified: new Date(s.modifiedMs).toISOString(),
        ageSeconds: Math.max(0, Math.round((now - s.modifiedMs) / 1000)),
      })),
    }));
    cli.stdout.write(`${JSON.stringify({ hosts }, null, 2)}\n`);
  } else {
    cli.stdout.write(`${snapshotTable(listings, now)}\n`);
  }
  for (const l of listings) if (l.error) cli.stderr.write(`${l.error}\n`);
  for (const l of listings)
    if (l.status === 'ok' && l.snapshots.length === 0)
      err(
        cli,
        `${l.host}: no etcd snapshot (scheduled ones need cluster.etcd.snapshots.enabled and a first run of the timer; kcluster etcd snapshot save -i ${options.inventory} --from ${l.host} takes one now)`,
      );
  if (listings.some((l) => l.status === 'failed')) cli.setExitCode(ExitCode.HostsFailed);
  else if (listings.some((l) => l.status === 'unreachable')) cli.setExitCode(ExitCode.HostsUnreachable);
}

async function storeListing(cli: CliContext, inventory: Inventory): Promise<HostListing> {
  try {
    return { host: 'store', status: 'ok', snapshots: await listStoredSnapshots(inventory, cli.env) };
  } catch (error) {
    if (!(error instanceof InputError || isStoreRefusal(error))) throw error;
    return { host: 'store', status: 'failed', error: `kcluster: store: cannot list its etcd snapshots: ${(error as Error).message}`, snapshots: [] };
  }
}

/** Whether `name` is a snapshot's name as list prints it; reported (exit 2) when not. */
function isSnapshotNameOrReport(cli: CliContext, inventory: Inventory, name: string): boolean {
  if (SNAPSHOT_NAME.test(name)) return true;
  err(cli, `"${name}" is not a snapshot name: a file name ending .db, without a folder, as kcluster etcd snapshot list -i ${inventory.file} prints it`);
  cli.setExitCode(ExitCode.InvalidInput);
  return false;
}

/** Snapshot `name` from the state store, opened into <stateDir>/backups (or `file`); undefined when it failed, reported. */
export async function fetchFromStoreOrReport(cli: CliContext, inventory: Inventory, name: string, file?: string): Promise<FetchedSnapshot | undefined> {
  if (inventory.cluster.state === undefined) {
    err(
      cli,
      `--from-store: ${inventory.file} has no cluster.state: its snapshots are on the control planes (kcluster etcd snapshot list -i ${inventory.file})`,
    );
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  if (!isSnapshotNameOrReport(cli, inventory, name)) return undefined;
  try {
    const fetched = await fetchStoredSnapshot(inventory, cli.env, name, file !== undefined ? resolve(cli.cwd, file) : undefined);
    if (fetched === undefined) {
      err(cli, `the state store has no snapshot ${name}: kcluster etcd snapshot list -i ${inventory.file} lists them`);
      cli.setExitCode(ExitCode.InvalidInput);
      return undefined;
    }
    err(cli, `fetched ${fetched.remote} to ${fetched.file}: ${fetched.bytes} bytes, sha256 ${fetched.sha256} (opened and checked chunk by chunk)`);
    return fetched;
  } catch (error) {
    if (!(error instanceof InputError || isStoreRefusal(error))) throw error;
    err(cli, `store: cannot fetch etcd snapshot ${name}: ${(error as Error).message}`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
}

/**
 * Snapshot `name` of control plane `from` copied to `file` (default <stateDir>/backups/NAME);
 * undefined when it failed, reported on stderr with the exit code set. Shared with restore --from-host.
 */
export async function fetchSnapshotToController(
  cli: CliContext,
  inventory: Inventory,
  from: string,
  name: string,
  file?: string,
): Promise<FetchedSnapshot | undefined> {
  const controlPlanes = controlPlanesOf(cli, inventory);
  if (!controlPlanes) return undefined;
  const host = controlPlanes.find((h) => h.name === from);
  if (!host) {
    err(
      cli,
      `--from ${from}: not a control plane of ${inventory.file} (control planes: ${controlPlanes.map((h) => h.name).join(', ')}); kcluster etcd snapshot list -i ${inventory.file} shows where each snapshot is`,
    );
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  if (!isSnapshotNameOrReport(cli, inventory, name)) return undefined;
  const local = file !== undefined ? resolve(cli.cwd, file) : join(inventory.stateDir, 'backups', name);
  const connector = controllerConnector(cli, inventory);
  try {
    let connection: Connection;
    try {
      connection = await connector.connect(host, cli.signal);
    } catch (error) {
      err(
        cli,
        `${host.name}: unreachable: ${unreachableReason(host.name, error)}; run it again once it answers, or fetch a copy from another control plane (kcluster etcd snapshot list -i ${inventory.file})`,
      );
      cli.setExitCode(ExitCode.HostsUnreachable);
      return undefined;
    }
    try {
      return await fetchHostSnapshot(connection, name, local);
    } catch (error) {
      if (error instanceof SnapshotNotFoundError) err(cli, `${host.name}: ${error.message}`);
      else if (error instanceof UnreachableError) err(cli, `${host.name}: unreachable: ${unreachableReason(host.name, error)}`);
      else err(cli, `${host.name}: cannot fetch etcd snapshot ${name}: ${detailFor(host.name, error)}`);
      cli.setExitCode(error instanceof UnreachableError ? ExitCode.HostsUnreachable : ExitCode.HostsFailed);
      return undefined;
    }
  } finally {
    await connector.closeAll();
  }
}

export async function snapshotFetch(cli: CliContext, name: string, options: SnapshotFetchOptions): Promise<void> {
  if ((options.from === undefined) === (options.fromStore !== true)) {
    err(cli, 'give where the snapshot is: --from HOST (a control plane) or --from-store (kcluster etcd snapshot list shows both)');
    return cli.setExitCode(ExitCode.InvalidInput);
  }
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  let fetched: FetchedSnapshot | undefined;
  if (options.from !== undefined) {
    fetched = await fetchSnapshotToController(cli, inventory, options.from, name, options.file);
    if (!fetched) return;
    err(cli, `fetched ${fetched.remote} from ${options.from}: ${fetched.bytes} bytes, sha256 ${fetched.sha256} (checked against the host's)`);
  } else {
    fetched = await fetchFromStoreOrReport(cli, inventory, name, options.file);
    if (!fetched) return;
  }
  if (options.output === 'json')
    cli.stdout.write(
      `${JSON.stringify({ host: options.from ?? 'store', name, remote: fetched.remote, file: fetched.file, bytes: fetched.bytes, sha256: fetched.sha256 }, null, 2)}\n`,
    );
  else cli.stdout.write(`${fetched.file}\n`);
}
