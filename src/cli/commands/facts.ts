// `kcluster facts -i FILE`: what each host is, read by one command per host, all hosts in
// parallel. A host that cannot be reached is reported (exit 5) without hiding the others.
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { quotedTerms, selectHosts, unknownSelectorHint } from '../../orchestrator/inventory/select-hosts.js';
import { createSshConnector } from '../../orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../orchestrator/ssh/host-key-policy-for.js';
import { RemoteCommandError } from '../../orchestrator/ssh/connection.js';
import { hostFacts, type HostFacts } from '../../orchestrator/facts/host-facts.js';
import { factsTable } from '../../orchestrator/facts/facts-table.js';
import { detailFor } from '../../orchestrator/ssh/host-error.js';

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
const aboutHost = (host: string, error: unknown, doing?: string): string => `${host}: ${doing ? `${doing}: ` : ''}${detailFor(host, error)}`;

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
      const connector = createSshConnector({ inventory, env: cli.env, hostKeys: hostKeyPolicyFor(inventory, cli.env) });
      try {
        const rows: Row[] = await Promise.all(
          selection.hosts.map(async (name): Promise<Row> => {
            const host = inventory.hosts.find((h) => h.name === name);
            if (!host) return { host: name, status: 'failed', error: `${name}: not in the inventory`, roundTrips: 0 };
            let connection;
            try {
              connection = await connector.connect(host, cli.signal);
            } catch (error) {
              return { host: name, status: 'unreachable', error: aboutHost(name, error), roundTrips: 0 };
            }
            try {
              const result = await connection.exec(hostFacts.script, { label: 'facts', timeoutMs: FACTS_TIMEOUT_MS });
              if (result.code !== 0) throw new RemoteCommandError(name, 'host facts script', result, 'facts');
              return { host: name, status: 'ok', facts: hostFacts.parse(result.stdout, result.code), roundTrips: connection.stats.roundTrips };
            } catch (error) {
              return { host: name, status: 'failed', error: aboutHost(name, error, 'cannot read facts'), roundTrips: connection.stats.roundTrips };
            }
          }),
        );
        if (options.output === 'json') cli.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else
          cli.stdout.write(
            `${factsTable(rows.map((r) => ({ host: r.host, ...(r.facts ? { facts: r.facts } : {}), ...(r.status !== 'ok' ? { error: r.status.toUpperCase() } : {}) })))}\n`,
          );
        for (const row of rows) if (row.error) cli.stderr.write(`${row.error}\n`);
        if (rows.some((r) => r.status === 'failed')) cli.setExitCode(ExitCode.HostsFailed);
        else if (rows.some((r) => r.status === 'unreachable')) cli.setExitCode(ExitCode.HostsUnreachable);
      } finally {
        await connector.closeAll();
      }
    });
}
