// `kcluster trust -i FILE [--refresh] HOST...`: pin hosts' SSH keys deliberately, showing
// each fingerprint. --refresh forgets a host's old pin first (after a re-install).
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import { createSshConnector } from '../../ssh/connector.js';
import { hostKeyPolicyFor } from '../../ssh/host-key-policy-for.js';
import { HostKeyPolicy } from '../../ssh/host-key-policy.js';
import { selectHosts } from '../../inventory/select-hosts.js';

export function registerTrustCommand(program: Command, cli: CliContext): void {
  program
    .command('trust')
    .description("pin hosts' SSH host keys (trust on first use, made explicit); --refresh re-keys a re-installed host")
    .requiredOption('-i, --inventory <file>', 'inventory file (YAML)')
    .option('--refresh', 'forget the pinned key first, then pin the key the host presents now')
    .argument('<hosts...>', 'host names, groups or globs')
    .action(async (selectors: string[], options: { inventory: string; refresh?: boolean }) => {
      const inventory = await loadInventoryOrReport(cli, options.inventory);
      if (!inventory) return;
      const selection = selectHosts(inventory, selectors);
      if (selection.unknown.length > 0) {
        cli.stderr.write(`kcluster: no host or group named ${selection.unknown.map((u) => `"${u}"`).join(', ')} in ${options.inventory}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const base = hostKeyPolicyFor(inventory, cli.env);
      for (const name of selection.hosts) {
        const host = inventory.hosts.find((h) => h.name === name)!;
        const target = { name, address: host.ssh.address, port: host.ssh.port };
        if (options.refresh) {
          const removed = base.unpin(target);
          cli.stdout.write(`${name}: forgot ${removed} pinned key(s)\n`);
        }
        // Pin-only policy: the user's known_hosts still wins if it knows the host.
        const policy = new HostKeyPolicy({ ...base.options, strict: false });
        const connector = createSshConnector({
          inventory,
          env: cli.env,
          hostKeys: policy,
          log: (line) => cli.stdout.write(`${line}\n`),
        });
        try {
          const connection = await connector.connect(host, cli.signal);
          await connection.close();
          cli.stdout.write(`${name}: host key trusted (${base.options.pinFile})\n`);
        } catch (error) {
          cli.stderr.write(`${(error as Error).message}\n`);
          cli.setExitCode(ExitCode.HostsUnreachable);
        } finally {
          await connector.closeAll();
        }
      }
    });
}
