// `kcluster reset -i FILE [--limit HOSTS] [--yes]`: remove everything kcluster installed from
// the selected hosts (all by default). Asks for confirmation unless --yes (or --check). The
// controller's state folder (the PKI, etcd snapshots) is kept: delete it yourself to forget
// the cluster entirely.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { refusalUnlessConfirmed } from '../confirm.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { limitHosts } from '../../orchestrator/engine/play-hosts.js';
import { resetPlaybook } from '../../../playbooks/reset.js';

interface ResetOptions extends PlaybookCommandOptions {
  readonly yes?: boolean;
}

export function registerResetCommand(program: Command, cli: CliContext): void {
  const command = program.command('reset').description('remove Kubernetes and everything kcluster installed from the hosts (asks first)');
  addPlaybookOptions(command).option('-y, --yes', 'do not ask for confirmation');
  command.action(async (options: ResetOptions) => {
    await runPlaybookCommand(
      cli,
      async (inventory, mode) => {
        const limit = options.limit
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const hosts = [...limitHosts(inventory, limit)];
        if (!mode.planOnly) {
          const what = `reset removes Kubernetes, its data (etcd included) and every pod from ${hosts.length} host(s): ${hosts.join(', ')}`;
          const refusal = await refusalUnlessConfirmed(cli, what, options.yes);
          if (refusal) throw new InputError(refusal);
        }
        return { playbook: resetPlaybook() };
      },
      options,
    );
  });
}
