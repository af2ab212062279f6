// `kcluster config -i FILE`: the effective inventory, every default filled in and marked, in
// the inventory's own shape (it validates and means the same when given back to kcluster);
// `--resolved` prints the resolved model the roles read instead (what `config` printed before);
// `--host SELECTOR` what apply writes for each component of those hosts (playbooks/host-config.ts).
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { renderEffectiveConfig } from '../../kubernetes/inventory/effective-config.js';
import { renderEffectiveInventory } from '../../kubernetes/inventory/effective-inventory.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { ExitCode } from '../exit-codes.js';
import { hostAccessLines } from '../../../playbooks/host-access.js';
import { hostConfigFiles, renderHostConfig } from '../../../playbooks/host-config.js';

export function registerConfigCommand(program: Command, cli: CliContext): void {
  program
    .command('config')
    .description('print the effective inventory: as written, with every default filled in and marked (it validates when given back)')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .addOption(
      new Option(
        '--resolved',
        "print the resolved model the roles read (each host's vars as the inventory merges them, cluster < groups < host, without the roles' own defaults, which plain `config` lists; absolute paths) instead of an inventory",
      ),
    )
    .addOption(
      new Option(
        '--host <selector>',
        "print how kcluster reaches these hosts (a name, a group, a glob or all), the vars their roles read, and what apply writes for each component: static pods' flags, the kubelet's, containerd's and the units' files",
      ).conflicts('resolved'),
    )
    .action(async (options: { inventory: string; output: 'yaml' | 'json'; resolved?: boolean; host?: string }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      if (options.host !== undefined) {
        try {
          const hosts = await hostConfigFiles(inventory, options.host, cli.env);
          // One host named: its list of files, as before; several (a group, a glob, all): an object by host.
          const single = hosts.length === 1 && hosts[0]!.host === options.host;
          if (options.output === 'json')
            cli.stdout.write(`${JSON.stringify(single ? hosts[0]!.files : Object.fromEntries(hosts.map((h) => [h.host, h.files])), null, 2)}\n`);
          else cli.stdout.write(hosts.map((h) => renderHostConfig(h.host, h.files, hostAccessLines(inventory, h.host))).join('\n'));
        } catch (error) {
          // What apply refuses about the inputs: reported as apply reports it, exit 2.
          if (!(error instanceof InputError)) throw error;
          cli.stderr.write(`kcluster: ${error.message}\n`);
          cli.setExitCode(ExitCode.InvalidInput);
        }
        return;
      }
      if (options.resolved === true) {
        cli.stdout.write(renderEffectiveConfig(inventory, options.output));
        return;
      }
      cli.stdout.write(renderEffectiveInventory(readFileSync(inventory.file, 'utf8'), inventory, options.output));
    });
}
