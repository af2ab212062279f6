// `kcluster trust -i FILE [--refresh] HOST...`: fetch each host's SSH host key (without
// logging in), show its fingerprint and pin it deliberately. --refresh replaces a pin that
// no longer matches (after a re-install); without it, a changed key is still refused.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { withStateLock } from '../lock-or-report.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { quotedTerms, selectHosts, unknownSelectorHint } from '../../orchestrator/inventory/select-hosts.js';
import { createSshConnector } from '../../orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../../orchestrator/ssh/host-key-policy-for.js';
import { trustHostKey, type TrustOutcome } from '../../orchestrator/ssh/trust-host-key.js';

function describeOutcome(name: string, outcome: TrustOutcome): string {
  const key = `${outcome.fingerprint} (${outcome.keyType})`;
  switch (outcome.kind) {
    case 'already-trusted':
      return `${name}: ${key} already trusted (${outcome.where})`;
    case 'pinned':
      return `${name}: pinned ${key} in ${outcome.where}`;
    case 're-keyed':
      return `${name}: forgot ${outcome.forgotten} pinned key(s) (was ${outcome.previous}); pinned ${key} in ${outcome.where}`;
    case 'refused':
      return `${outcome.error.message}${outcome.hint ? `\n  (${outcome.hint})` : ''}`;
  }
}

export function registerTrustCommand(program: Command, cli: CliContext): void {
  program
    .command('trust')
    .description("show and pin hosts' SSH host keys (trust on first use, made explicit); --refresh re-keys a re-installed host")
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--refresh', 'replace a pinned key that no longer matches with the key the host presents now')
    .argument('<hosts...>', 'host names, groups or globs')
    .action(async (selectors: string[], options: { inventory: string; refresh?: boolean }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      const selection = selectHosts(inventory, selectors);
      if (selection.unknown.length > 0) {
        cli.stderr.write(
          `kcluster: no host or group named ${quotedTerms(selection.unknown)} in ${options.inventory}${unknownSelectorHint(inventory, selection.unknown)}\n`,
        );
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      // With a state store, the pins are published when the command ends (under its lease): the
      // next command's pull would otherwise put the store's older known_hosts back.
      if (inventory.cluster.state !== undefined) await withStateLock(cli, inventory, () => pin(inventory, selection.hosts, options.refresh ?? false));
      else await pin(inventory, selection.hosts, options.refresh ?? false);
    });

  async function pin(inventory: Inventory, hosts: readonly string[], refresh: boolean): Promise<void> {
    const policy = hostKeyPolicyFor(inventory, cli.env);
    const connector = createSshConnector({ inventory, env: cli.env, hostKeys: policy, log: (line) => cli.stderr.write(`${line}\n`) });
    let shown = 0;
    try {
      for (const name of hosts) {
        const host = inventory.hosts.find((h) => h.name === name);
        if (!host) continue;
        let key: Buffer;
        try {
          key = await connector.scanHostKey(host, cli.signal);
        } catch (error) {
          cli.stderr.write(`${(error as Error).message}\n`);
          cli.setExitCode(ExitCode.HostsUnreachable);
          continue;
        }
        const outcome = trustHostKey(policy, { name, address: host.ssh.address, port: host.ssh.port }, key, refresh);
        if (outcome.kind === 'refused') {
          cli.stderr.write(`${describeOutcome(name, outcome)}\n`);
          cli.setExitCode(ExitCode.HostsUnreachable);
        } else {
          cli.stdout.write(`${describeOutcome(name, outcome)}\n`);
          shown += 1;
        }
      }
    } finally {
      await connector.closeAll();
    }
    if (shown > 0) cli.stdout.write('To be sure, compare with `ssh-keygen -lf /etc/ssh/ssh_host_<type>_key.pub` run on the host itself (console, not SSH).\n');
  }
}
