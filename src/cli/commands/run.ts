// `kcluster run -i FILE PLAYBOOK`: run a playbook shipped with kcluster (by name), or one of
// your own: a path to an ES module whose default export (or `playbook` export) is a Playbook,
// in JavaScript or in TypeScript (.ts/.mts, transpiled on load with the project's typescript).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { runPlaybookCommand, type PlaybookCommandOptions } from '../run-playbook-command.js';
import { addPlaybookOptions } from '../playbook-options.js';
import { addPlanOptions } from '../plan/plan-options.js';
import type { Playbook } from '../../orchestrator/engine/types.js';
import { enableTypeScriptPlaybooks, TYPESCRIPT_PLAYBOOK } from '../typescript-playbooks/register.js';
import { findPlaybook, playbookNames } from '../../../playbooks/index.js';

function isPlaybook(value: unknown): value is Playbook {
  const p = value as Partial<Playbook> | undefined;
  return typeof p?.name === 'string' && Array.isArray(p.plays);
}

async function playbookFrom(reference: string, cli: CliContext): Promise<Playbook | string> {
  if (!/[/\\]|\.m?[jt]s$/.test(reference)) {
    return (await findPlaybook(reference)) ?? `unknown playbook "${reference}"; known: ${playbookNames().join(', ')} (or a path to a module)`;
  }
  const file = resolve(cli.cwd, reference);
  if (TYPESCRIPT_PLAYBOOK.test(file)) {
    const problem = enableTypeScriptPlaybooks(file);
    if (problem !== undefined) return problem;
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    return `cannot load the playbook module ${file}: ${(error as Error).message}`;
  }
  const candidate = module['default'] ?? module['playbook'];
  return isPlaybook(candidate) ? candidate : `${file} exports no playbook: export default { name, description, plays: [...] }`;
}

export function registerRunCommand(program: Command, cli: CliContext): void {
  const command = program
    .command('run')
    .description('run a playbook on the hosts of an inventory')
    .argument('<playbook>', `a shipped playbook (${playbookNames().join(', ')}) or a path to a module exporting one`);
  addPlanOptions(addPlaybookOptions(command)).action(async (reference: string, options: PlaybookCommandOptions) => {
    const playbook = await playbookFrom(reference, cli);
    if (typeof playbook === 'string') {
      cli.stderr.write(`kcluster: ${playbook}\n`);
      cli.setExitCode(ExitCode.InvalidInput);
      return;
    }
    await runPlaybookCommand(cli, playbook, options);
  });
}
