// `kcluster status -i FILE [--run ID] [--last N] [-o text|json]`: what the runs that changed
// hosts did, from the journal in <stateDir>/journal: the last runs, then the last one (or
// --run ID) per host: what it changed, what failed, what was left and where it stopped, and
// the command to run next. Read-only: no SSH, no lock.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { JOURNAL_FOLDER } from '../journal/journal-records.js';
import { readJournalFolder } from '../journal/read-journal.js';
import { nextCommand, runDetail, runTable } from '../journal/render-status.js';
import { runOutcome, type RunOutcome } from '../journal/run-outcome.js';
import { unfinishedRotation } from '../journal/unfinished-rotation.js';
import { readCaRotation } from '../../kubernetes/pki/ca-rotation.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { sha256SmallFile } from '../../orchestrator/util/sha256-file.js';
import { JournalMirror } from '../state-store/journal-mirror.js';
import { storeOf } from '../state-store/state-session.js';
import { readLease, type LeaseHolder } from '../../orchestrator/state-store/lease.js';
import { isStoreRefusal } from '../../orchestrator/state-store/store-refusal.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';

interface StatusOptions {
  readonly inventory: string;
  readonly run?: string;
  readonly last: string;
  readonly output: 'text' | 'json';
}

/** Whether `pid` is the live process that holds the cluster's state lock on this machine. */
function holdsLock(stateDir: string, pid: number): boolean {
  try {
    const holder = JSON.parse(readFileSync(join(stateDir, 'lock'), 'utf8')) as { pid?: unknown; host?: unknown };
    if (holder.pid !== pid || holder.host !== hostname()) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sha256Of(file: string): string | undefined {
  try {
    return sha256SmallFile(file);
  } catch {
    return undefined;
  }
}

/** The store's journal brought into the state folder; the holder of its live lease, if any. A store that cannot be read is said, and the folder's own journal used. */
async function readStoreJournal(cli: CliContext, inventory: Inventory): Promise<LeaseHolder | undefined> {
  try {
    const store = await storeOf(inventory, cli.env);
    const brought = await new JournalMirror(store.s3, store.prefix, store.key, inventory.stateDir).pull();
    if (brought > 0) cli.stderr.write(`kcluster: the journal of ${brought} run(s) made on other controllers brought from ${store.where}\n`);
    const lease = await readLease(store.s3, store.prefix);
    return lease !== undefined && lease.record.released !== true && lease.expiresIn > 0 ? lease.record.holder : undefined;
  } catch (error) {
    if (!(error instanceof InputError || isStoreRefusal(error))) throw error;
    cli.stderr.write(
      `kcluster: warning: the state store could not be read (${(error as Error).message}): this is the journal of this controller's runs only\n`,
    );
    return undefined;
  }
}

function pick(runs: readonly RunOutcome[], id: string, dir: string): RunOutcome {
  const exact = runs.find((r) => r.id === id);
  if (exact) return exact;
  const matches = runs.filter((r) => r.id.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1)
    throw new InputError(`--run ${id}: ${matches.length} runs start with it (${matches.map((r) => r.id).join(', ')}): give more of the id`);
  throw new InputError(`--run ${id}: no such run in ${dir}; kcluster status -i FILE lists the runs kept (the last ${runs.length})`);
}

function lastCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`--last must be a whole number of 1 or more (got ${JSON.stringify(value)})`);
  return n;
}

async function status(cli: CliContext, options: StatusOptions): Promise<void> {
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  const dir = join(inventory.stateDir, JOURNAL_FOLDER);
  // With a state store, the runs made on other controllers are read from it, and a run is in
  // progress while its controller holds the store's lease.
  const leaseHolder = inventory.cluster.state !== undefined ? await readStoreJournal(cli, inventory) : undefined;
  try {
    const last = lastCount(options.last);
    const files = readJournalFolder(dir, (note) => cli.stderr.write(`kcluster: warning: ${note}\n`));
    if (files.length === 0) {
      throw new InputError(
        `no run journal yet in ${dir} (the state folder of cluster ${inventory.cluster.name}, ${inventory.file}): runs that change hosts (apply, upgrade, reset, remove-node, certs renew, secrets rotate-key, etcd snapshot save and restore, run) write one; --check runs do not. Run one, or give the inventory those runs used`,
      );
    }
    const runs = files.map((f) => runOutcome(f, (pid) => holdsLock(inventory.stateDir, pid) || leaseHolder?.pid === pid)).reverse();
    const chosen = options.run === undefined ? runs[0]! : pick(runs, options.run, dir);
    const inventoryChanged = sha256Of(chosen.inventory.file) !== chosen.inventory.sha256;
    // Only the newest run can say what to do now; a rotation under way is said beside it.
    const rotation = options.run === undefined ? unfinishedRotation(await readCaRotation(inventory.stateDir), runs, cli.cwd, inventory.file) : undefined;
    const next = nextCommand(chosen, cli.cwd) ?? rotation?.next;
    if (options.output === 'json') {
      const list = runs.slice(0, last).map(({ id, command, started, ended, durationMs, result, finished, exitCode }) => ({
        id,
        command,
        started,
        ended,
        durationMs,
        result,
        finished,
        ...(exitCode !== undefined ? { exitCode } : {}),
      }));
      const detail = { ...chosen, inventoryChanged, ...(next !== undefined ? { next } : {}), ...(rotation !== undefined ? { unfinished: rotation } : {}) };
      cli.stdout.write(`${JSON.stringify(options.run === undefined ? { journal: dir, runs: list, last: detail } : { journal: dir, run: detail }, null, 2)}\n`);
      return;
    }
    if (options.run === undefined) {
      cli.stdout.write(`Journal ${dir}: ${runs.length} run(s) kept, newest first${runs.length > last ? ` (the last ${last} shown)` : ''}\n`);
      cli.stdout.write(`${runTable(runs.slice(0, last))}\n`);
    }
    cli.stdout.write(runDetail(chosen, { full: options.run !== undefined, cwd: cli.cwd, inventoryChanged }));
    if (rotation !== undefined) cli.stdout.write(`Not finished: ${rotation.what}. Run next to go on:\n  ${rotation.next}\n`);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
  }
}

export function registerStatusCommand(program: Command, cli: CliContext): void {
  program
    .command('status')
    .description(
      'what the last runs changed on the hosts, whether the last one finished, what was left, and what to run next (from the run journal; read-only)',
    )
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--run <id>', 'one run in detail, every change listed (its id, or the start of it, as the table prints it)')
    .option('--last <n>', 'runs listed in the table', '10')
    .addOption(new Option('-o, --output <format>', 'text or json').choices(['text', 'json']).default('text'))
    .action((options: StatusOptions) => status(cli, options));
}
