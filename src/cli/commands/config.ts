// `kcluster config -i FILE`: the complete effective configuration, every default filled in.
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { renderEffectiveConfig } from '../../orchestrator/inventory/effective-config.js';

export function registerConfigCommand(program: Command, cli: CliContext): void {
  program
    .command('config')
    .description('print the complete effective configuration (defaults filled in) as YAML or JSON')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action(async (options: { inventory: string; output: 'yaml' | 'json' }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      cli.stdout.write(renderEffectiveConfig(inventory, options.output));
    });
}
