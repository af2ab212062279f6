// Entry point of the kcluster command. Builds the command tree, runs it, and returns the
// exit code instead of calling process.exit, so tests can drive it like any function.
import { setMaxListeners } from 'node:events';
import { Command, CommanderError } from 'commander';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { registerApplyCommand } from './commands/apply.js';
import { registerArtifactsCommand } from './commands/artifacts.js';
import { registerCertsCommand } from './commands/certs.js';
import { registerKubeconfigCommand } from './commands/kubeconfig.js';
import { registerUpgradeCommand } from './commands/upgrade.js';
import { registerResetCommand } from './commands/reset.js';
import { registerEtcdCommand } from './commands/etcd.js';
import { registerRemoveNodeCommand } from './commands/remove-node.js';
import { registerConfigCommand } from './commands/config.js';
import { registerFactsCommand } from './commands/facts.js';
import { registerLabCommand } from './commands/lab.js';
import { registerRunCommand } from './commands/run.js';
import { registerTrustCommand } from './commands/trust.js';
import { registerValidateCommand } from './commands/validate.js';
import { packageVersion } from '../util/package-version.js';

/** Which exit code wins when several are set during one command: the most serious. */
const EXIT_PRIORITY: readonly number[] = [
  ExitCode.Interrupted,
  ExitCode.Internal,
  ExitCode.InvalidInput,
  ExitCode.HostsFailed,
  ExitCode.HostsUnreachable,
  ExitCode.ChangesPending,
  ExitCode.Success,
];

function rank(code: number): number {
  const i = EXIT_PRIORITY.indexOf(code);
  return i === -1 ? 0 : i;
}

export interface MainOptions {
  readonly stdout?: CliContext['stdout'];
  readonly stderr?: CliContext['stderr'];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
}

export function buildProgram(cli: CliContext): Command {
  const program = new Command();
  program
    .name('kcluster')
    .description('Agentless SSH orchestrator with idempotent, typed playbooks, specialised in Kubernetes.')
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => cli.stdout.write(text),
      writeErr: (text) => cli.stderr.write(text),
    })
    .exitOverride();
  registerValidateCommand(program, cli);
  registerConfigCommand(program, cli);
  registerRunCommand(program, cli);
  registerFactsCommand(program, cli);
  registerTrustCommand(program, cli);
  registerLabCommand(program, cli);
  registerArtifactsCommand(program, cli);
  registerApplyCommand(program, cli);
  registerKubeconfigCommand(program, cli);
  registerUpgradeCommand(program, cli);
  registerResetCommand(program, cli);
  registerEtcdCommand(program, cli);
  registerRemoveNodeCommand(program, cli);
  registerCertsCommand(program, cli);
  // Sub-commands inherit output settings and never exit the process themselves.
  for (const command of program.commands) {
    command.configureOutput(program.configureOutput()).exitOverride();
  }
  return program;
}

export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const controller = new AbortController();
  // Every host's connection and waits listen to this one signal: hundreds is normal.
  setMaxListeners(0, controller.signal);
  const onSignal = (): void => controller.abort(new Error('interrupted'));
  const ownSignals = options.signal === undefined;
  if (ownSignals) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  } else {
    options.signal?.addEventListener('abort', onSignal, { once: true });
  }
  const stdin = process.stdin as { isTTY?: boolean };
  const env = options.env ?? process.env;
  let exitCode: number = ExitCode.Success;
  const cli: CliContext = {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    env,
    cwd: options.cwd ?? process.cwd(),
    interactive: Boolean(stdin.isTTY) && !env['CI'],
    signal: controller.signal,
    setExitCode(code: number) {
      if (rank(code) < rank(exitCode)) exitCode = code;
    },
  };
  try {
    await buildProgram(cli).parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with exit code 0; usage errors with 2.
      if (error.exitCode === 0) return exitCode;
      cli.setExitCode(ExitCode.InvalidInput);
    } else {
      throw error;
    }
  } finally {
    if (ownSignals) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
  if (controller.signal.aborted) cli.setExitCode(ExitCode.Interrupted);
  return exitCode;
}
