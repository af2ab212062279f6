// `kcluster validate -i FILE`: every inventory problem at once, with its exact position.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { componentFilesOrInputError, operatorManifestsOrInputError, refuseWhatKclusterSets } from '../../../playbooks/cluster-inputs.js';

export function registerValidateCommand(program: Command, cli: CliContext): void {
  program
    .command('validate')
    .description('check an inventory and report every problem with its file:line:col')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .action(async (options: { inventory: string }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      try {
        refuseWhatKclusterSets(inventory);
        await operatorManifestsOrInputError(inventory);
        await componentFilesOrInputError(inventory);
      } catch (error) {
        // What apply refuses before touching a host: reported as apply reports it, exit 2.
        if (!(error instanceof InputError)) throw error;
        cli.stderr.write(`kcluster: ${error.message}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const count = (group: string): number => inventory.groups[group]?.length ?? 0;
      cli.stdout.write(
        `${options.inventory}: valid (${inventory.hosts.length} hosts: ${count('control-plane')} control planes, ` +
          `${count('worker')} workers, ${count('etcd')} etcd members)\n`,
      );
    });
}
