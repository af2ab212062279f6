// `kcluster facts -i FILE`: what each host is, read in one round trip per host.
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { selectHosts } from '../../inventory/select-hosts.js';
import { createSshConnector } from '../../ssh/connector.js';
import { hostKeyPolicyFor } from '../../ssh/host-key-policy-for.js';
import { hostFacts, type HostFacts } from '../../facts/host-facts.js';
import { factsTable } from '../../facts/facts-table.js';

type Row = { host: string; facts?: HostFacts; error?: string; roundTrips: number };

export function registerFactsCommand(program: Command, cli: CliContext): void {
  program
    .command('facts')
    .description('show what each host is (OS, kernel, CPUs, memory, cgroups, addresses, runtimes, ports) in one round trip per host')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-l, --limit <selector>', 'only these hosts: names, groups, globs')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (options: { inventory: string; limit?: string; output: 'table' | 'json' }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      const selection = selectHosts(inventory, options.limit ?? 'all');
      if (selection.unknown.length > 0) {
        cli.stderr.write(`kcluster: --limit: no host or group named ${selection.unknown.map((u) => `"${u}"`).join(', ')}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const connector = createSshConnector({ inventory, env: cli.env, hostKeys: hostKeyPolicyFor(inventory, cli.env) });
      try {
        const rows: Row[] = await Promise.all(
          selection.hosts.map(async (name): Promise<Row> => {
            const host = inventory.hosts.find((h) => h.name === name)!;
            try {
              const connection = await connector.connect(host, cli.signal);
              const result = await connection.exec(hostFacts.script, { label: 'facts' });
              return { host: name, facts: hostFacts.parse(result.stdout, result.code), roundTrips: connection.stats.roundTrips };
            } catch (error) {
              return { host: name, error: (error as Error).message, roundTrips: 0 };
            }
          }),
        );
        if (options.output === 'json') cli.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else cli.stdout.write(`${factsTable(rows)}\n`);
        for (const row of rows) if (row.error) cli.stderr.write(`${row.error}\n`);
        if (rows.some((r) => r.error)) cli.setExitCode(ExitCode.HostsUnreachable);
      } finally {
        await connector.closeAll();
      }
    });
}
