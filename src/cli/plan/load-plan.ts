// Reads a plan file for `--plan` and refuses, before any host is touched, one that this run
// cannot carry out: another kcluster, another inventory, another command or selection.
import { readFileSync } from 'node:fs';
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { packageVersion } from '../../orchestrator/util/package-version.js';
import { sha256SmallFile } from '../../orchestrator/util/sha256-file.js';
import { commandLine } from '../journal/command-line.js';
import { parsePlanFile, type PlanFile } from './plan-file.js';
import { applyArgv } from './plan-options.js';

export interface Selection {
  readonly limit?: string;
  readonly tags?: string;
  readonly skipTags?: string;
}

/** Reads `file` (as given) and parses it; an InputError naming the file when it cannot. */
export function readPlan(file: string, shown: string): PlanFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read the plan file ${shown}: ${(error as Error).message} (write one with --check --plan-out ${shown})`);
  }
  return parsePlanFile(text, shown);
}

/** Pure, but for the inventory's hash: why this run may not carry out `plan`, or undefined. */
export function planMismatch(
  plan: PlanFile,
  shown: string,
  run: { command: string | undefined; inventory: Inventory; inventorySha256: string; version: string; selection: Selection },
): string | undefined {
  const remake = `make a new plan with ${commandLine(plan.argv)}, review it, then carry it out`;
  if (plan.kclusterVersion !== run.version) return `${shown} was made by kcluster ${plan.kclusterVersion}, this is ${run.version}: ${remake}`;
  if (plan.argv[0] !== run.command)
    return `${shown} is a plan of \`kcluster ${plan.argv[0] ?? '?'}\`, not of \`kcluster ${run.command ?? '?'}\`: run ${commandLine(applyArgv(plan.argv, shown))}`;
  if (plan.inventory.sha256 !== run.inventorySha256)
    return `${run.inventory.file} changed since ${shown} was made from ${plan.inventory.file} (sha256 ${plan.inventory.sha256.slice(0, 12)} then, ${run.inventorySha256.slice(0, 12)} now): ${remake}`;
  for (const [name, flag] of [
    ['limit', '--limit'],
    ['tags', '--tags'],
    ['skipTags', '--skip-tags'],
  ] as const) {
    if (run.selection[name] !== plan.selection[name]) {
      return `${shown} was made with ${plan.selection[name] === undefined ? `no ${flag}` : `${flag} ${plan.selection[name]}`}, this run has ${run.selection[name] === undefined ? 'none' : `${flag} ${run.selection[name]}`}: run ${commandLine(applyArgv(plan.argv, shown))}`;
    }
  }
  return undefined;
}

/** The plan, checked against this run's command, inventory, kcluster and selection. */
export function loadPlan(file: string, shown: string, command: string | undefined, inventory: Inventory, selection: Selection): PlanFile {
  const plan = readPlan(file, shown);
  const problem = planMismatch(plan, shown, { command, inventory, inventorySha256: sha256SmallFile(inventory.file), version: packageVersion(), selection });
  if (problem) throw new InputError(problem);
  return plan;
}
