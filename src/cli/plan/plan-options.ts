// --plan-out and --plan: the options of the commands that can write and carry out a plan file
// (run, apply, upgrade), and what they refuse before anything runs.
import { Option, type Command } from 'commander';

export interface PlanOptions {
  readonly check?: boolean;
  readonly plan?: string;
  readonly planOut?: string;
}

export function addPlanOptions(command: Command): Command {
  return command
    .addOption(new Option('--plan-out <file>', 'with --check: write the planned changes and the facts they were planned from (hashed) to this file'))
    .addOption(new Option('--plan <file>', 'carry out this plan file exactly; refused (exit 2, nothing changed) when a fact it was planned from changed'));
}

/** Pure: why these options cannot go together, or undefined. */
export function planOptionsProblem(options: PlanOptions): string | undefined {
  if (options.planOut !== undefined && options.plan !== undefined)
    return '--plan-out and --plan do not go together: write a plan with --check --plan-out FILE, then carry it out with --plan FILE';
  if (options.planOut !== undefined && options.check !== true)
    return `--plan-out needs --check: a plan is written from a run that changes nothing (add --check)`;
  return undefined;
}

/** Pure: the command that carries out a plan written by `argv` (its --check, --diff and --plan-out dropped). */
export function applyArgv(argv: readonly string[], file: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--plan-out') i += 1;
    else if (!['--check', '-C', '--diff', '-D'].includes(arg) && !arg.startsWith('--plan-out=')) out.push(arg);
  }
  return [...out, '--plan', file];
}
