// `kcluster validate -i FILE`: every inventory problem at once, with its exact position, then
// everything apply would refuse about the inputs before touching a host, decided on the
// controller alone (checkClusterInputs, which apply calls too, and the state folder's place).
// No SSH, no download, no running cluster asked, nothing written.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { inventoryStateDirProblem } from '../state-lock.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { checkClusterInputs } from '../../../playbooks/cluster-inputs.js';

export function registerValidateCommand(program: Command, cli: CliContext): void {
  program
    .command('validate')
    .description('check an inventory and report every problem with its file:line:col, and whatever apply would refuse about it')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .action(async (options: { inventory: string }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      try {
        const stateDir = inventoryStateDirProblem(inventory);
        if (stateDir !== undefined) throw new InputError(stateDir);
        await checkClusterInputs(inventory, cli.env);
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
