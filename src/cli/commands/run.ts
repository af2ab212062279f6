// `kcluster run -i FILE PLAYBOOK`: run any playbook by name (see `kcluster run --list`).
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { findPlaybook, playbookNames } from '../../../playbooks/index.js';

export function registerRunCommand(program: Command, cli: CliContext): void {
  const command = program
    .command('run')
    .description('run a playbook on the hosts of an inventory')
    .argument('<playbook>', `playbook name (${playbookNames().join(', ')})`);
  addPlaybookOptions(command).action(async (name: string, options: PlaybookCommandOptions) => {
    const playbook = findPlaybook(name);
    if (!playbook) {
      cli.stderr.write(`kcluster: unknown playbook "${name}"; known: ${playbookNames().join(', ')}\n`);
      cli.setExitCode(ExitCode.InvalidInput);
      return;
    }
    await runPlaybookCommand(cli, playbook, options);
  });
}
