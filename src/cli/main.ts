// Entry point of the kcluster command. Builds the command tree, runs it, and returns the
// exit code instead of calling process.exit, so tests can drive it like any function.
// Only the command being run is loaded (its module graph: the engine, SSH, what it needs);
// help, --version and unknown commands load all of them. Start-up is a visible part of a
// no-op run: loading every command took about twice as long as loading `run` alone.
import { setMaxListeners } from 'node:events';
import { Command, CommanderError } from 'commander';
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { unknownCommandIn } from './unknown-command.js';
import { addHelpExamples, markRequiredOptions } from './help-format.js';
import { packageVersion } from '../orchestrator/util/package-version.js';

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

type Register = (program: Command, cli: CliContext) => void;

/** Every command, by name, and how to load its registration (in the order help lists them). */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['init', async () => (await import('./commands/init.js')).registerInitCommand],
  ['validate', async () => (await import('./commands/validate.js')).registerValidateCommand],
  ['config', async () => (await import('./commands/config.js')).registerConfigCommand],
  ['run', async () => (await import('./commands/run.js')).registerRunCommand],
  ['facts', async () => (await import('./commands/facts.js')).registerFactsCommand],
  ['trust', async () => (await import('./commands/trust.js')).registerTrustCommand],
  ['lab', async () => (await import('./commands/lab.js')).registerLabCommand],
  ['artifacts', async () => (await import('./commands/artifacts.js')).registerArtifactsCommand],
  ['bundle', async () => (await import('./commands/bundle.js')).registerBundleCommand],
  ['apply', async () => (await import('./commands/apply.js')).registerApplyCommand],
  ['kubeconfig', async () => (await import('./commands/kubeconfig.js')).registerKubeconfigCommand],
  ['upgrade', async () => (await import('./commands/upgrade.js')).registerUpgradeCommand],
  ['reset', async () => (await import('./commands/reset.js')).registerResetCommand],
  ['etcd', async () => (await import('./commands/etcd.js')).registerEtcdCommand],
  ['remove-node', async () => (await import('./commands/remove-node.js')).registerRemoveNodeCommand],
  ['certs', async () => (await import('./commands/certs.js')).registerCertsCommand],
  ['secrets', async () => (await import('./commands/secrets.js')).registerSecretsCommand],
  ['status', async () => (await import('./commands/status.js')).registerStatusCommand],
  ['state', async () => (await import('./commands/state.js')).registerStateCommand],
  ['plan', async () => (await import('./commands/plan.js')).registerPlanCommand],
  ['report', async () => (await import('./commands/report.js')).registerReportCommand],
];

/** Pure: the commands to load for these arguments (all of them unless the first is a known command). */
export function commandsToLoad(args: readonly string[]): readonly string[] {
  const all = COMMANDS.map(([name]) => name);
  const first = args[0];
  return first !== undefined && all.includes(first) ? [first] : all;
}

export async function buildProgram(cli: CliContext, args: readonly string[]): Promise<Command> {
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
  markRequiredOptions(program);
  const wanted = new Set(commandsToLoad(args));
  const registers = await Promise.all(COMMANDS.filter(([name]) => wanted.has(name)).map(([, load]) => load()));
  for (const register of registers) register(program, cli);
  addHelpExamples(program);
  // Sub-commands inherit output settings and never exit the process themselves.
  for (const command of program.commands) {
    command.configureOutput(program.configureOutput()).exitOverride();
  }
  return program;
}

/** How long a run may take to stop cleanly after Ctrl-C or SIGTERM. */
const STOP_GRACE_MS = 10_000;

export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const controller = new AbortController();
  // Every host's connection and waits listen to this one signal: hundreds is normal.
  setMaxListeners(0, controller.signal);
  const ownSignals = options.signal === undefined;
  // The first Ctrl-C or SIGTERM stops the run cleanly (commands cancelled, connections
  // closed, recap printed); a second one, or the run still going after STOP_GRACE_MS, exits
  // at once (exit handlers still remove the state lock).
  let signals = 0;
  const onSignal = (): void => {
    signals += 1;
    if (!ownSignals) {
      controller.abort(new Error('interrupted'));
      return;
    }
    const stderr = options.stderr ?? process.stderr;
    if (signals > 1) {
      stderr.write('kcluster: stopped at once (second signal)\n');
      process.exit(ExitCode.Interrupted);
    }
    controller.abort(new Error('interrupted'));
    setTimeout(() => {
      stderr.write(`kcluster: still stopping after ${STOP_GRACE_MS / 1000} s: exiting now; a rerun converges what was left half done\n`);
      process.exit(ExitCode.Interrupted);
    }, STOP_GRACE_MS).unref();
  };
  if (ownSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
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
    argv: argv.slice(2),
    interactive: Boolean(stdin.isTTY) && !env['CI'],
    signal: controller.signal,
    setExitCode(code: number) {
      if (rank(code) < rank(exitCode)) exitCode = code;
    },
  };
  try {
    const program = await buildProgram(cli, argv.slice(2));
    const unknown = unknownCommandIn(program, argv.slice(2));
    if (unknown !== undefined) {
      cli.stderr.write(`kcluster: ${unknown}\n`);
      cli.setExitCode(ExitCode.InvalidInput);
    } else {
      await program.parseAsync([...argv]);
    }
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
