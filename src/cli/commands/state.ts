// `kcluster state show|history|rollback|unlock|push|pull|migrate -i FILE`: the cluster's state store
// (cluster.state, issue 41) seen and handled from any controller: what it holds and who holds
// its lease; every generation; a rollback as a new generation (asks first); the lease of a
// controller that is gone broken (asks first); the state folder published over the store's
// newest generation (moving a cluster from one machine's folder into the store; asks first);
// the folder brought in line with the store (a new controller); the state moved to another store,
// the old one marked so that no controller uses it again (asks first).
import { Option, type Command } from 'commander';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { commandLine, withStateLock } from '../lock-or-report.js';
import { claimStore, markMoved, sessionFor, storeOf, unpublishedPath, type StoreAccess } from '../state-store/state-session.js';
import { LogMirror } from '../state-store/log-mirror.js';
import { moveAside, readTracked, trackedPaths, writeTracked } from '../state-store/tracked-files.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { breakLease, acquireLease, readLease } from '../../orchestrator/state-store/lease.js';
import { isStoreRefusal } from '../../orchestrator/state-store/store-refusal.js';
import { textTable } from '../../orchestrator/util/text-table.js';

interface StateOptions {
  readonly inventory: string;
  readonly output?: 'text' | 'json';
  readonly yes?: boolean;
  readonly to?: string;
}

const by = () => ({ machine: hostname(), pid: process.pid, command: commandLine() });

/** Bad input and the store's own refusals: reported, exit 2. */
const isRefusal = (error: unknown): error is Error => error instanceof InputError || isStoreRefusal(error);

/** A refusal reported (exit 2); anything else thrown on. */
const reportRefusal =
  (cli: CliContext) =>
  (error: unknown): void => {
    if (!isRefusal(error)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
  };

/** Loads the inventory and runs `body` with its store; an input problem is reported (exit 2). */
async function withStore(cli: CliContext, options: StateOptions, body: (inventory: Inventory, store: StoreAccess) => Promise<void>): Promise<void> {
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  try {
    await body(inventory, await storeOf(inventory, cli.env));
  } catch (error) {
    reportRefusal(cli)(error);
  }
}

async function show(cli: CliContext, options: StateOptions): Promise<void> {
  await withStore(cli, options, async (_inventory, store) => {
    const head = await store.generations.head();
    const lease = await readLease(store.s3, store.prefix);
    const versioning = await store.s3.versioning().catch(() => 'unknown' as const);
    const holder =
      lease === undefined || lease.record.released === true || lease.record.holder === undefined
        ? undefined
        : { ...lease.record.holder, expiresInSeconds: Math.ceil(lease.expiresIn), expired: lease.expiresIn <= 0 };
    const files = head === undefined ? [] : Object.entries(head.files);
    const summary = {
      store: store.where,
      keyFingerprint: store.key.fingerprint,
      generation: head?.generation ?? null,
      ...(head !== undefined ? { written: { at: head.createdAt, by: head.by, reason: head.reason } } : {}),
      files: files.length,
      bytes: files.reduce((n, [, e]) => n + e.size, 0),
      lease: holder ?? null,
      versioning,
    };
    if (options.output === 'json') return void cli.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    const lines = [
      `store:       ${summary.store} (sealed with ${summary.keyFingerprint}; bucket versioning ${versioning})`,
      head === undefined
        ? 'generation:  none yet (the first command that changes the state publishes it)'
        : `generation:  ${head.generation}, ${head.createdAt}, by ${head.by.command} (pid ${head.by.pid} on ${head.by.machine}): ${head.reason}`,
      `files:       ${summary.files} (${summary.bytes} bytes)`,
      `lease:       ${holder === undefined ? 'free' : `${holder.command} (pid ${holder.pid} on ${holder.machine}, started ${holder.started}); ${holder.expired ? 'expired: the next command takes it over' : `expires in ${holder.expiresInSeconds} s unless renewed`}`}`,
    ];
    cli.stdout.write(`${lines.join('\n')}\n`);
  });
}

async function history(cli: CliContext, options: StateOptions): Promise<void> {
  await withStore(cli, options, async (_inventory, store) => {
    const manifests = await Promise.all((await store.generations.numbers()).map((n) => store.generations.read(n)));
    const rows = manifests.map((m) => ({
      generation: m.generation,
      at: m.createdAt,
      command: m.by.command,
      machine: m.by.machine,
      reason: m.reason,
      files: Object.keys(m.files).length,
    }));
    if (options.output === 'json') return void cli.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    if (rows.length === 0) return void cli.stdout.write(`no generation in ${store.where} yet\n`);
    cli.stdout.write(
      textTable([
        ['GENERATION', 'WRITTEN', 'BY', 'ON', 'FILES', 'WHY'],
        ...rows.map((r) => [String(r.generation), r.at, r.command, r.machine, String(r.files), r.reason]),
      ]),
    );
  });
}

async function rollback(cli: CliContext, options: StateOptions): Promise<void> {
  const to = Number(options.to);
  if (!Number.isSafeInteger(to) || to < 1) {
    cli.stderr.write(`kcluster: --to ${String(options.to)}: give the number of a generation (kcluster state history lists them)\n`);
    return cli.setExitCode(ExitCode.InvalidInput);
  }
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  // Under the lease: the rollback is the next generation, and the state folder follows it.
  await withStateLock(cli, inventory, async () => {
    const store = await storeOf(inventory, cli.env);
    const refusal = await refusalUnlessConfirmed(
      cli,
      `state rollback makes a new generation of ${store.where} holding what generation ${to} held (CAs, keys, pinned host keys): hosts keep what they have until the next apply`,
      options.yes,
    );
    if (refusal) throw new InputError(refusal);
    // The older generation's files become the state folder's, and the session publishes them as the next generation.
    const target = await store.generations.read(to);
    const files = await store.generations.files(target);
    const at = new Date().toISOString().replace(/[:.]/g, '-');
    for (const path of trackedPaths(inventory.stateDir)) if (target.files[path] === undefined) moveAside(inventory.stateDir, path, at);
    for (const file of files) writeTracked(inventory.stateDir, file);
    await sessionFor(inventory.stateDir)!.commit(`rollback to ${to}`);
    cli.stderr.write(
      `kcluster: the store's newest generation holds what generation ${to} held, and so does ${inventory.stateDir}. Run kcluster apply --check to see what the hosts would get\n`,
    );
  }).catch(reportRefusal(cli));
}

async function unlock(cli: CliContext, options: StateOptions): Promise<void> {
  await withStore(cli, options, async (_inventory, store) => {
    const lease = await readLease(store.s3, store.prefix);
    const holder = lease?.record.released === true ? undefined : lease?.record.holder;
    if (holder === undefined) return void cli.stderr.write(`kcluster: no controller holds the lease of ${store.where}: nothing to unlock\n`);
    const refusal = await refusalUnlessConfirmed(
      cli,
      `state unlock breaks the lease of ${holder.command} (pid ${holder.pid} on ${holder.machine}, started ${holder.started}${lease!.expiresIn > 0 ? `, renewed ${Math.round(lease!.record.ttlSeconds - lease!.expiresIn)} s ago: it may still run` : ', expired'}); if that run is alive, two controllers change the cluster at once`,
      options.yes,
    );
    if (refusal) throw new InputError(refusal);
    await breakLease(store.s3, store.prefix);
    cli.stderr.write(`kcluster: the lease of ${holder.command} on ${holder.machine} is broken; kcluster status names what that run left\n`);
  });
}

async function push(cli: CliContext, options: StateOptions): Promise<void> {
  await withStore(cli, options, async (inventory, store) => {
    const files = readTracked(inventory.stateDir);
    if (files.length === 0) throw new InputError(`${inventory.stateDir} holds no state (no pki/, encryption/ or known_hosts): nothing to publish`);
    // Another cluster's store, another key, or a store whose cluster moved: refused before anything is written.
    await claimStore(inventory, store);
    const head = await store.generations.head();
    const refusal = await refusalUnlessConfirmed(
      cli,
      `state push publishes the ${files.length} state file(s) of ${inventory.stateDir} as the newest generation of ${store.where}${head !== undefined ? `, over generation ${head.generation} (${head.reason}): what only the store holds is then in history alone` : ''}`,
      options.yes,
    );
    if (refusal) throw new InputError(refusal);
    const lease = await acquireLease(store.s3, store.prefix, { command: commandLine(), ttlSeconds: inventory.cluster.state!.leaseSeconds });
    try {
      const made = await store.generations.commit(head, files, by(), `pushed from ${inventory.stateDir}`);
      // What a run could not publish is published now: the next command may take the store's state.
      rmSync(unpublishedPath(inventory.stateDir), { force: true });
      cli.stderr.write(`kcluster: ${files.length} file(s) published to ${store.where} as generation ${made.generation}\n`);
    } finally {
      await lease.release();
    }
  });
}

async function pullState(cli: CliContext, options: StateOptions): Promise<void> {
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  // Taking the hold is the pull: under the lease, the folder is brought in line with the newest
  // generation (the store wins; a file only the folder has is moved aside, never uploaded).
  await withStateLock(cli, inventory, async () => {
    const store = await storeOf(inventory, cli.env);
    const head = await store.generations.head();
    cli.stderr.write(
      head === undefined
        ? `kcluster: ${store.where} holds no generation yet: nothing pulled; kcluster state push -i ${options.inventory} --yes publishes ${inventory.stateDir}\n`
        : `kcluster: ${inventory.stateDir} holds generation ${head.generation} of ${store.where} (${Object.keys(head.files).length} file(s), written ${head.createdAt} by ${head.by.command} on ${head.by.machine})\n`,
    );
    // The runs' logs too, which a session never brings by itself (they can be large).
    const logs = await new LogMirror(store.s3, store.prefix, store.key, inventory.stateDir, Date.now()).pull();
    if (logs.brought > 0)
      cli.stderr.write(
        `kcluster: ${logs.brought} run log(s) brought from ${store.where} into ${join(inventory.stateDir, 'logs')} (kcluster report reads them)\n`,
      );
    for (const why of logs.refused) cli.stderr.write(`kcluster: a run log was not brought: ${why}\n`);
  }).catch(reportRefusal(cli));
}

async function migrate(cli: CliContext, options: StateOptions & { readonly to: string }): Promise<void> {
  const from = await loadInventoryOrReport(cli, options.inventory);
  if (!from) return;
  const to = await loadInventoryOrReport(cli, options.to);
  if (!to) return;
  const refuse = (why: string): void => {
    cli.stderr.write(`kcluster: state migrate: ${why}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
  };
  if (from.cluster.state === undefined)
    return refuse(`${from.file} has no cluster.state: to move a state folder into a store, kcluster state push -i ${to.file} --yes`);
  if (to.cluster.state === undefined)
    return refuse(`${to.file} has no cluster.state: to leave the store, kcluster state pull -i ${from.file}, then remove cluster.state from it`);
  const { leaseSeconds } = to.cluster.state;
  if (from.cluster.name !== to.cluster.name)
    return refuse(`${from.file} is cluster ${from.cluster.name}, ${to.file} is cluster ${to.cluster.name}: both must name the same cluster`);
  // Under the old store's lease, its newest generation in the state folder: copied to the new store, then the old one marked as moved.
  await withStateLock(cli, from, async () => {
    const source = await storeOf(from, cli.env);
    const target = await storeOf(to, cli.env);
    if (target.where === source.where) throw new InputError(`${to.file} names the same store as ${from.file} (${source.where}): nothing to move`);
    const head = await source.generations.head();
    if (head === undefined) throw new InputError(`${source.where} holds no generation yet: nothing to move (kcluster state push publishes a state folder)`);
    await claimStore(to, target);
    const reason = `migrated from ${source.where} generation ${head.generation}`;
    const already = await target.generations.head();
    // A migration stopped after its copy and before the old store was marked: finished now.
    const copied = already !== undefined && already.generation === 1 && already.reason === reason;
    if (already !== undefined && !copied)
      throw new InputError(
        `${target.where} already holds generation ${already.generation} of ${to.cluster.name}: move into an empty store (another bucket or prefix)`,
      );
    const refusal = await refusalUnlessConfirmed(
      cli,
      `state migrate copies generation ${head.generation} of ${source.where} to ${target.where} and marks ${source.where} as moved: every controller must then use ${to.file}'s cluster.state (the old one is refused)`,
      options.yes,
    );
    if (refusal) throw new InputError(refusal);
    if (!copied) {
      const files = await source.generations.files(head);
      const lease = await acquireLease(target.s3, target.prefix, { command: commandLine(), ttlSeconds: leaseSeconds });
      await target.generations.commit(undefined, files, by(), reason).finally(() => lease.release());
    }
    await markMoved(source, { to: target.where, at: new Date().toISOString(), generation: head.generation, by: by() });
    cli.stderr.write(
      `kcluster: generation ${head.generation} of ${source.where} is generation 1 of ${target.where} (${Object.keys(head.files).length} file(s)${copied ? ', copied by an earlier migrate that stopped' : ''}); ${source.where} is marked as moved, its etcd snapshots and run journal stay there. Use ${to.file} from now on\n`,
    );
  }).catch(reportRefusal(cli));
}

export function registerStateCommand(program: Command, cli: CliContext): void {
  const state = program.command('state').description('the state store of a team (cluster.state): what it holds, its history, its lease');
  const output = () => new Option('-o, --output <format>', 'text or json').choices(['text', 'json']);
  state
    .command('show')
    .description('the store, its newest generation, its size, who holds its lease, and whether the bucket keeps versions')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(output())
    .action((o: StateOptions) => show(cli, o));
  state
    .command('history')
    .description('every generation of the state: when, by which command on which machine, and why')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(output())
    .action((o: StateOptions) => history(cli, o));
  state
    .command('rollback')
    .description('a new generation holding what an older one held, and the state folder following it (asks first)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .requiredOption('--to <generation>', 'the generation to go back to (kcluster state history)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((o: StateOptions) => rollback(cli, o));
  state
    .command('unlock')
    .description('break the lease of a controller that is gone (asks first)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((o: StateOptions) => unlock(cli, o));
  state
    .command('push')
    .description("publish this controller's state folder as the store's newest generation: a cluster moved into the store (asks first)")
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((o: StateOptions) => push(cli, o));
  state
    .command('pull')
    .description("bring this controller's state folder in line with the store's newest generation (the store wins; what only the folder has is moved aside)")
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .action((o: StateOptions) => pullState(cli, o));
  state
    .command('migrate')
    .description(
      'move the state to the store another inventory names (an empty bucket or prefix), and mark the old store as moved so no controller uses it again (asks first)',
    )
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML) naming the store the state is in')
    .requiredOption('--to <file>', 'inventory file naming the store to move it to (the same cluster)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((o: StateOptions & { to: string }) => migrate(cli, o));
}
