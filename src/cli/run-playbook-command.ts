// The path every playbook-running command shares (run, and later apply / upgrade / reset):
// load the inventory, open the state folder, wire SSH, reporter and debug log, run, recap.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { loadInventoryOrReport } from './load-inventory-or-report.js';
import type { Playbook } from '../orchestrator/engine/types.js';
import type { RunEvent } from '../orchestrator/engine/events.js';
import type { Inventory } from '../orchestrator/inventory/model.js';
import type { RunOptions, RunSummary } from '../orchestrator/engine/run-playbook.js';
import { InputError } from '../orchestrator/engine/input-error.js';
import { checkTags, playbookTags } from '../orchestrator/engine/playbook-tags.js';
import { createReporter } from '../orchestrator/report/create-reporter.js';
import { createSshConnector } from '../orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../orchestrator/ssh/host-key-policy-for.js';
import { promptHidden } from './prompt-hidden.js';
import { holdStateOrReport } from './lock-or-report.js';
import type { StateSession } from './state-store/state-session.js';
import { journalForRun } from './journal/journal-for-run.js';
import { planOptionsProblem, type PlanOptions } from './plan/plan-options.js';
import { loadPlan } from './plan/load-plan.js';
import { plannedRun } from './plan/planned-run.js';
import type { PlanFile } from './plan/plan-file.js';

export interface PlaybookCommandOptions extends PlanOptions {
  readonly inventory: string;
  readonly check?: boolean;
  readonly diff?: boolean;
  readonly limit?: string;
  readonly tags?: string;
  readonly skipTags?: string;
  /** Print the playbook's tags instead of running it (the builder prepares as for --check). */
  readonly listTags?: boolean;
  readonly concurrency?: string;
  readonly output?: string;
}

/** --check or --list-tags: nothing will change on a host, so nothing to confirm or renew. */
export function planOnly(options: PlaybookCommandOptions): boolean {
  return options.check === true || options.listTags === true;
}

export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function parseConcurrency(value: string | undefined, cli: CliContext): number | undefined {
  if (value === undefined) return 64;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) {
    cli.stderr.write(`kcluster: --concurrency must be an integer 1-10000 (got "${value}")\n`);
    return undefined;
  }
  return n;
}

function reporterMode(output: string | undefined, cli: CliContext): 'tree' | 'plain' | 'json' | undefined {
  if (output === 'json') return 'json';
  if (output !== undefined && output !== 'text') {
    cli.stderr.write(`kcluster: --output must be "text" or "json" (got "${output}")\n`);
    return undefined;
  }
  return cli.stdout.isTTY && !cli.env['CI'] ? 'tree' : 'plain';
}

/** The options that select what runs, as typed: a plan file keeps them, --plan compares them. */
function selectionOf(options: PlaybookCommandOptions): { limit?: string; tags?: string; skipTags?: string } {
  return {
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.tags !== undefined ? { tags: options.tags } : {}),
    ...(options.skipTags !== undefined ? { skipTags: options.skipTags } : {}),
  };
}

function timestampForFile(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

/**
 * What a command runs: a fixed playbook, or one built from the loaded inventory (the cluster
 * playbook needs verified artifacts and the PKI first). A builder throws InputError (exit 2,
 * nothing touched) for bad input, or returns shared values to seed the run with. With
 * `mode.planOnly` (--check, --list-tags, and the build that checks --tags before a real one) a
 * builder changes nothing: it prepares in memory and never asks for confirmation.
 */
export interface BuildMode {
  readonly planOnly: boolean;
  /**
   * Built only to read the playbook's tags (--list-tags; --tags, --skip-tags given, before the
   * real build): in memory, silent, artifacts resolved and not fetched, and without reading a
   * running cluster (the roles are the same whatever it says).
   */
  readonly probe: boolean;
}
export type PlaybookSource = Playbook | ((inventory: Inventory, mode: BuildMode) => Promise<{ playbook: Playbook; shared?: Map<string, unknown> }>);

export async function runPlaybookCommand(cli: CliContext, source: PlaybookSource, options: PlaybookCommandOptions): Promise<RunSummary | undefined> {
  const concurrency = parseConcurrency(options.concurrency, cli);
  const mode = reporterMode(options.output, cli);
  const planProblem = planOptionsProblem(options);
  if (planProblem !== undefined) cli.stderr.write(`kcluster: ${planProblem}\n`);
  if (concurrency === undefined || mode === undefined || planProblem !== undefined) {
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return undefined;
  let plan: PlanFile | undefined;
  try {
    // Refused before any preparation: another kcluster, inventory, command or selection.
    if (options.plan !== undefined) plan = loadPlan(resolve(cli.cwd, options.plan), options.plan, cli.argv?.[0], inventory, selectionOf(options));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  const hold = await holdStateOrReport(cli, inventory);
  if (!hold) return undefined;
  let ended = 'ended';
  try {
    const summary = await runLocked(cli, source, options, inventory, concurrency, mode, plan, hold.session);
    ended = summary === undefined ? 'refused' : summary.exitCode === 0 ? 'completed' : summary.interrupted ? 'interrupted' : 'failed';
    return summary;
  } finally {
    await hold.release(`${['kcluster', ...(cli.argv ?? [])].join(' ')}: ${ended}`);
  }
}

async function runLocked(
  cli: CliContext,
  source: PlaybookSource,
  options: PlaybookCommandOptions,
  inventory: Inventory,
  concurrency: number,
  mode: 'tree' | 'plain' | 'json',
  plan: PlanFile | undefined,
  session: StateSession | undefined,
): Promise<RunSummary | undefined> {
  let playbook: Playbook;
  let shared: Map<string, unknown> | undefined;
  const tags = splitList(options.tags);
  const skipTags = splitList(options.skipTags);
  try {
    if (typeof source === 'function') {
      // A --tags or --skip-tags typo is refused before anything is made (a PKI, keys, an
      // artifact fetched): the tags come from a build that changes nothing.
      if ((tags !== undefined || skipTags !== undefined) && !planOnly(options))
        checkTags((await source(inventory, { planOnly: true, probe: true })).playbook, tags, skipTags);
      // --list-tags reads the playbook only: built as the tag check's is (nothing fetched or written).
      ({ playbook, shared } = await source(inventory, { planOnly: planOnly(options), probe: options.listTags === true }));
    } else {
      playbook = source;
    }
    // Before the run's log is opened: a refused selection leaves no empty log behind.
    checkTags(playbook, tags, skipTags);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  if (options.listTags) {
    cli.stdout.write(
      playbookTags(playbook)
        .map((tag) => `${tag}\n`)
        .join(''),
    );
    return undefined;
  }

  const logDir = join(inventory.stateDir, 'logs');
  await mkdir(logDir, { recursive: true, mode: 0o700 });
  const debugLogPath = join(logDir, `${timestampForFile(new Date())}-${playbook.name}.log`);
  const reporter = await createReporter({
    mode,
    out: cli.stdout,
    err: cli.stderr,
    color: mode !== 'json' && Boolean(cli.stdout.isTTY) && cli.env['NO_COLOR'] === undefined,
    debugLogPath,
  });
  const connector = createSshConnector({
    inventory,
    env: cli.env,
    hostKeys: hostKeyPolicyFor(inventory, cli.env),
    log: (line) => reporter.debug(line),
    ...(cli.interactive ? { promptPassphrase: (keyFile: string) => promptHidden(`passphrase for ${keyFile}: `) } : {}),
  });
  // Warnings (see NoChange.warning) are said again after the recap, where they are not lost in the task lines.
  const warnings: string[] = [];
  // What the run changes, per host, as it happens (<stateDir>/journal; kcluster status reads it).
  const journal = journalForRun(cli, inventory);
  try {
    const limit = splitList(options.limit);
    const events = {
      emit: (event: RunEvent) => {
        journal.emit(event);
        if (event.type === 'task-result' && event.warning !== undefined) warnings.push(`${event.host}: ${event.task}: ${event.warning}`);
        reporter.emit(event);
      },
    };
    const run: RunOptions = {
      inventory,
      playbook,
      connect: (host, signal) => connector.connect(host, signal),
      concurrency,
      check: options.check ?? false,
      diff: options.diff ?? false,
      ...(limit ? { limit } : {}),
      ...(tags ? { tags } : {}),
      ...(skipTags ? { skipTags } : {}),
      events,
      signal: cli.signal,
      log: (line) => reporter.debug(line),
      debugLogPath: reporter.debugLogPath,
      ...(shared ? { shared } : {}),
      transferConcurrency: inventory.cluster.artifacts.uploadConcurrency,
      // What preparation made (a CA, keys, pinned host keys) is in the store before any host changes.
      ...(session !== undefined ? { beforeAnyChange: () => session.commit(`${playbook.name}: before the first change on a host`) } : {}),
    };
    const summary = await plannedRun(run, {
      cli,
      inventory,
      selection: selectionOf(options),
      ...(options.planOut !== undefined ? { planOut: { file: resolve(cli.cwd, options.planOut), shown: options.planOut } } : {}),
      ...(plan !== undefined && options.plan !== undefined ? { plan: { plan, shown: options.plan } } : {}),
      debug: (line) => reporter.debug(line),
    });
    cli.setExitCode(summary.exitCode);
    return summary;
  } catch (error) {
    journal.abandon(error);
    if (error instanceof InputError) {
      cli.stderr.write(`kcluster: ${error.message}\n`);
      cli.setExitCode(ExitCode.InvalidInput);
      return undefined;
    }
    throw error;
  } finally {
    journal.detach();
    await connector.closeAll();
    await reporter.close();
    for (const warning of warnings) cli.stderr.write(`kcluster: warning: ${warning}\n`);
  }
}
