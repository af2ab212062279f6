// A run with a plan file: `--check --plan-out FILE` records what every task planned and writes
// it; `--plan FILE` first plans again in check mode (nothing changes), compares with the file,
// and only when every task, change and fact hash matches runs the real apply. The check pass
// has its own copy of the shared values, so what check mode marks (a BeforeFirstChange "done")
// never reaches the real run.
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import type { CliContext } from '../context.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { runPlaybook, type RunOptions, type RunSummary } from '../../orchestrator/engine/run-playbook.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { packageVersion } from '../../orchestrator/util/package-version.js';
import { sha256SmallFile } from '../../orchestrator/util/sha256-file.js';
import { commandLine, journalArgv } from '../journal/command-line.js';
import { beyondPlan } from './beyond-plan.js';
import { comparePlans } from './compare-plan.js';
import type { Selection } from './load-plan.js';
import { serializePlan, PLAN_FORMAT, PLAN_KIND, type PlanFile } from './plan-file.js';
import { applyArgv } from './plan-options.js';
import { planRecorder } from './plan-recorder.js';

export interface PlannedRunOptions {
  readonly cli: CliContext;
  readonly inventory: Inventory;
  readonly selection: Selection;
  /** --plan-out: where to write, absolute, and as typed. */
  readonly planOut?: { readonly file: string; readonly shown: string };
  /** --plan: the plan, already checked against this run (loadPlan), and its file as typed. */
  readonly plan?: { readonly plan: PlanFile; readonly shown: string };
  readonly debug: (line: string) => void;
}

const EXIT_OK_OR_PENDING = new Set([0, 3]);

function writePlan(run: RunOptions, options: PlannedRunOptions, out: { file: string; shown: string }, salt: string, hosts: PlanFile['hosts']): void {
  const argv = journalArgv(options.cli.argv ?? process.argv.slice(2));
  const plan: PlanFile = {
    kind: PLAN_KIND,
    format: PLAN_FORMAT,
    kclusterVersion: packageVersion(),
    createdAt: new Date().toISOString(),
    argv,
    playbook: run.playbook.name,
    inventory: { file: options.inventory.file, sha256: sha256SmallFile(options.inventory.file) },
    selection: options.selection,
    salt,
    hosts,
  };
  const temp = `${out.file}.${process.pid}.tmp`;
  writeFileSync(temp, serializePlan(plan), { mode: 0o600 });
  renameSync(temp, out.file);
  const changes = hosts.reduce((n, h) => n + h.tasks.filter((t) => ['create', 'update', 'delete', 'run'].includes(t.kind)).length, 0);
  options.cli.stderr.write(
    `kcluster: plan written to ${out.shown}: ${changes} change(s) on ${hosts.length} host(s); review it with kcluster plan show ${out.shown}, carry it out with ${commandLine(applyArgv(argv, out.shown))}\n`,
  );
}

function hostErrors(summary: RunSummary): string {
  return summary.hosts
    .filter((h) => h.error !== undefined)
    .map((h) => `\n  ${h.host}: ${h.error}`)
    .join('');
}

async function checkAgainstPlan(run: RunOptions, options: PlannedRunOptions, plan: PlanFile, shown: string): Promise<RunSummary> {
  if (plan.playbook !== run.playbook.name)
    throw new InputError(
      `${shown} is a plan of the playbook ${plan.playbook}, this run is ${run.playbook.name}: run ${commandLine(applyArgv(plan.argv, shown))}`,
    );
  options.cli.stderr.write(`kcluster: checking ${shown} against the hosts (check mode: nothing is changed)\n`);
  const recorder = planRecorder(plan.salt);
  const summary = await runPlaybook({
    ...run,
    check: true,
    diff: false,
    shared: new Map(run.shared ?? []),
    events: { emit: (event) => options.debug(`event (plan check) ${JSON.stringify(event)}`) },
    onPlanned: (planned) => recorder.record(planned),
  });
  if (!EXIT_OK_OR_PENDING.has(summary.exitCode)) {
    options.cli.stderr.write(`kcluster: checking ${shown} failed (exit ${summary.exitCode}), nothing was changed:${hostErrors(summary)}\n`);
    return summary;
  }
  const differences = comparePlans(plan.hosts, recorder.hosts());
  if (differences.length > 0) {
    throw new InputError(
      `${shown} is stale, nothing was changed: what it was planned from changed since ${plan.createdAt}:\n  ${differences.join('\n  ')}\nmake a new plan with ${commandLine(plan.argv)}, review it, then carry it out`,
    );
  }
  options.cli.stderr.write(`kcluster: ${shown} matches every host: every task plans the same change from the same facts\n`);
  return summary;
}

/** Runs `run` as the plan options say (a plain run without them). */
export async function plannedRun(run: RunOptions, options: PlannedRunOptions): Promise<RunSummary> {
  if (options.planOut !== undefined) {
    const salt = randomBytes(16).toString('hex');
    const recorder = planRecorder(salt);
    const summary = await runPlaybook({ ...run, onPlanned: (planned) => recorder.record(planned) });
    if (EXIT_OK_OR_PENDING.has(summary.exitCode)) writePlan(run, options, options.planOut, salt, recorder.hosts());
    else
      options.cli.stderr.write(
        `kcluster: no plan written to ${options.planOut.shown}: the check did not finish on every host (exit ${summary.exitCode}); fix that and plan again\n`,
      );
    return summary;
  }
  if (options.plan !== undefined) {
    const { plan, shown } = options.plan;
    const checked = await checkAgainstPlan(run, options, plan, shown);
    if (run.check || !EXIT_OK_OR_PENDING.has(checked.exitCode)) return checked;
    const recorder = planRecorder(plan.salt);
    const summary = await runPlaybook({ ...run, onPlanned: (planned) => recorder.record(planned) });
    const beyond = beyondPlan(plan.hosts, recorder.hosts());
    if (beyond.length > 0) {
      options.cli.stderr.write(
        `kcluster: ${beyond.length} task(s) planned at their turn otherwise than in ${shown}, after earlier changes of this run (a plan cannot foresee these):\n  ${beyond.join('\n  ')}\n`,
      );
    }
    return summary;
  }
  return runPlaybook(run);
}
