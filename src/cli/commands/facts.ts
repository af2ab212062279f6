// `kcluster facts -i FILE`: what each host is, read by one command per host, all hosts in
// parallel. A host that cannot be reached is reported (exit 5) without hiding the others.
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { quotedTerms, selectHosts, unknownSelectorHint } from '../../orchestrator/inventory/select-hosts.js';
import { RemoteCommandError } from '../../orchestrator/ssh/connection.js';
import { hostFacts, type HostFacts } from '../../orchestrator/facts/host-facts.js';
import { factsTable } from '../../orchestrator/facts/facts-table.js';
import { readOnEachHost } from '../read-on-each-host.js';

interface Row {
  readonly host: string;
  readonly facts?: HostFacts;
  /** "unreachable": no connection; "failed": connected, but the facts could not be read. */
  readonly status: 'ok' | 'unreachable' | 'failed';
  readonly error?: string;
  readonly roundTrips: number;
}

const FACTS_TIMEOUT_MS = 60_000;

/** Every line about a host starts with its name. */
export function registerFactsCommand(program: Command, cli: CliContext): void {
  program
    .command('facts')
    .description('show what each host is (OS, kernel, CPUs, memory, swap, cgroups, addresses, runtimes, ports) in one round trip per host')
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('-l, --limit <selector>', 'only these hosts: names, groups, globs')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (options: { inventory: string; limit?: string; output: 'table' | 'json' }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      const selection = selectHosts(inventory, options.limit ?? 'all');
      if (selection.unknown.length > 0) {
        cli.stderr.write(
          `kcluster: --limit: no host or group named ${quotedTerms(selection.unknown)} in ${options.inventory}${unknownSelectorHint(inventory, selection.unknown)}\n`,
        );
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const hosts = selection.hosts.map((name) => inventory.hosts.find((h) => h.name === name)!);
      const reads = await readOnEachHost(cli, inventory, hosts, 'cannot read facts', async (connection, host) => {
        const result = await connection.exec(hostFacts.script, { label: 'facts', timeoutMs: FACTS_TIMEOUT_MS });
        if (result.code !== 0) throw new RemoteCommandError(host.name, 'host facts script', result, 'facts');
        return hostFacts.parse(result.stdout, result.code);
      });
      const rows: Row[] = reads.map((r) =>
        r.status === 'ok'
          ? { host: r.host, status: 'ok', facts: r.value, roundTrips: r.roundTrips }
          : { host: r.host, status: r.status, error: r.error, roundTrips: r.roundTrips },
      );
      if (options.output === 'json') cli.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else
        cli.stdout.write(
          `${factsTable(rows.map((r) => ({ host: r.host, ...(r.facts ? { facts: r.facts } : {}), ...(r.status !== 'ok' ? { error: r.status.toUpperCase() } : {}) })))}\n`,
        );
      for (const row of rows) if (row.error) cli.stderr.write(`${row.error}\n`);
      if (rows.some((r) => r.status === 'failed')) cli.setExitCode(ExitCode.HostsFailed);
      else if (rows.some((r) => r.status === 'unreachable')) cli.setExitCode(ExitCode.HostsUnreachable);
    });
}
