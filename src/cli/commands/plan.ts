// `kcluster plan show FILE`: a plan file written by `--check --plan-out FILE`, printed as the
// `--check --diff` run it came from printed it. Read-only: no inventory, no SSH, no lock.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { readPlan } from '../plan/load-plan.js';
import { renderPlan } from '../plan/render-plan.js';

export function registerPlanCommand(program: Command, cli: CliContext): void {
  const plan = program.command('plan').description('plan files: written by apply, upgrade or run with --check --plan-out, carried out with --plan');
  plan
    .command('show')
    .description('print a plan file as --check --diff printed it: every task per host, changes with their diffs (secrets not shown)')
    .argument('<file>', 'the plan file')
    .action((file: string) => {
      try {
        const loaded = readPlan(resolve(cli.cwd, file), file);
        cli.stdout.write(renderPlan(loaded, file, Boolean(cli.stdout.isTTY) && cli.env['NO_COLOR'] === undefined));
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        cli.stderr.write(`kcluster: ${error.message}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
      }
    });
}
