// `kcluster init --control-plane ADDRESS --worker ADDRESS ... [--file PATH]`: a starter
// inventory from the hosts given on the command line, commented, that `validate` accepts.
// Written to standard output, or to a new file (an existing one is never overwritten).
import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { addressProblem, initHosts } from '../init/init-hosts.js';
import { starterInventory, type StarterSettings } from '../init/starter-inventory.js';
import { CLUSTER_DEFAULTS } from '../../kubernetes/inventory/defaults.js';
import { SCHEMA_PATH } from '../../kubernetes/inventory/schema-diagnostics.js';
import { packageRoot } from '../../orchestrator/util/package-root.js';
import { REFERENCE_PAGE } from '../../kubernetes/inventory/schema-reference.js';

interface InitOptions {
  controlPlane?: string[];
  worker?: string[];
  name: string;
  user: string;
  key?: string;
  agent?: boolean;
  bundle?: string;
  apiEndpoint?: string;
  containerRuntime: 'containerd' | 'docker';
  file?: string;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];
const CLUSTER_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const LOGIN_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const EXAMPLES = `
Examples:
  # one control plane, two workers, logging in as debian (sudo) with a key:
  kcluster init --control-plane 10.0.0.1 --worker 10.0.0.2 --worker 10.0.0.3 --user debian --key ~/.ssh/id_ed25519
  # three control planes behind a load balancer, named hosts, into a new file:
  kcluster init --control-plane cp1=10.0.0.11 --control-plane cp2=10.0.0.12 --control-plane cp3=10.0.0.13 \\
    --worker w1=10.0.0.21 --api-endpoint 10.0.0.10 --bundle /srv/kcluster-bundle --file inventory.yaml
`;

/** `target` as a path from `folder`, starting with ./ or ../ as editors expect. */
const relativeFrom = (folder: string, target: string): string => {
  const path = relative(folder, target);
  return path.startsWith('.') ? path : `./${path}`;
};

/** Every problem with the arguments, and the settings when there is none. */
function settingsOf(options: InitOptions, folder: string): { settings?: StarterSettings; problems: string[] } {
  const { hosts, problems } = initHosts(options.controlPlane ?? [], options.worker ?? []);
  if (!CLUSTER_NAME.test(options.name)) problems.push(`--name ${options.name}: a cluster name is lowercase letters, digits and '-' (at most 63), e.g. prod`);
  if (!LOGIN_NAME.test(options.user)) problems.push(`--user ${options.user}: not a login name (letters, digits, '_', '.', '-')`);
  if (options.key !== undefined && options.agent === true) problems.push('--key and --agent: give one way to log in, not both');
  if (options.key === '') problems.push('--key: the path of a private key file is empty');
  if (options.apiEndpoint !== undefined) {
    const bad = addressProblem(options.apiEndpoint);
    if (bad !== undefined) problems.push(`--api-endpoint ${options.apiEndpoint}: ${bad}`);
  }
  if (options.bundle === '') problems.push('--bundle: the path is empty');
  if (problems.length > 0) return { problems };
  const login = options.key !== undefined ? { keyFile: options.key } : options.agent === true ? { agent: true as const } : undefined;
  return {
    problems,
    settings: {
      name: options.name,
      hosts,
      user: options.user,
      login,
      bundle: options.bundle,
      apiEndpoint: options.apiEndpoint,
      containerRuntime: options.containerRuntime,
      // Relative to the inventory's folder: the file stays valid when the folder (with its
      // node_modules/kcluster, or beside this checkout) is copied or committed elsewhere.
      schemaPath: relativeFrom(folder, join(packageRoot(), SCHEMA_PATH)),
      referencePage: relativeFrom(folder, join(packageRoot(), REFERENCE_PAGE)),
    },
  };
}

export function registerInitCommand(program: Command, cli: CliContext): void {
  program
    .command('init')
    .description('write a starter inventory for the hosts given (standard output, or --file)')
    .option('--control-plane <[name=]address>', 'a control-plane host, repeatable; required, at least one (3 or 5 for HA; apply adds more later)', collect)
    .option('--worker <[name=]address>', 'a worker host, repeatable', collect)
    .option('--name <name>', 'the cluster name', CLUSTER_DEFAULTS.name)
    .option('--user <name>', 'the SSH login name (not root: commands run through sudo)', 'root')
    .option('--key <path>', 'the private key to log in with (default: the ssh-agent, else ~/.ssh/id_ed25519 or id_rsa)')
    .option('--agent', "log in with the running ssh-agent's keys")
    .option('--bundle <path>', 'the artifact bundle `kcluster bundle build` printed (default: a placeholder marked CHANGE)')
    .option('--api-endpoint <address>', 'a load balancer in front of the control planes (default: none)')
    .addOption(new Option('--container-runtime <name>', 'the container runtime').choices(['containerd', 'docker']).default('containerd'))
    .option('--file <path>', 'write a new file instead of standard output (an existing file is never overwritten)')
    .addHelpText('after', EXAMPLES)
    .action((options: InitOptions) => {
      const { settings, problems } = settingsOf(options, options.file === undefined ? cli.cwd : dirname(resolve(cli.cwd, options.file)));
      if (settings === undefined) {
        cli.stderr.write(problems.map((p) => `kcluster: init: ${p}\n`).join(''));
        cli.stderr.write('kcluster: nothing was written (kcluster init --help has examples)\n');
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      const text = starterInventory(settings);
      if (options.bundle === undefined)
        cli.stderr.write(
          'kcluster: init: no --bundle: cluster.artifacts.bundle is a placeholder marked CHANGE; `kcluster bundle build -i FILE` builds one and prints its folder\n',
        );
      if (options.file === undefined) {
        cli.stdout.write(text);
        return;
      }
      const path = resolve(cli.cwd, options.file);
      try {
        writeFileSync(path, text, { flag: 'wx', mode: 0o644 });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why =
          code === 'EEXIST'
            ? 'exists already: kcluster init never overwrites a file; choose another --file or remove it'
            : `cannot be written: ${(error as Error).message}`;
        cli.stderr.write(`kcluster: init: ${path} ${why}\n`);
        cli.setExitCode(ExitCode.InvalidInput);
        return;
      }
      cli.stderr.write(`kcluster: wrote ${path}: check it with kcluster validate -i ${options.file}\n`);
    });
}
