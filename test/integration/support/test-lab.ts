// The shared test lab that test/run-all.sh brings up (`kcluster lab up --name kctest`):
// where its files are, how to reach its hosts with the OpenSSH client, how to run the CLI.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';

const run = promisify(execFile);

export interface TestLab {
  readonly dir: string;
  readonly inventoryFile: string;
  readonly sshConfigFile: string;
  readonly knownHostsFile: string;
  readonly keyFile: string;
  readonly hosts: readonly { name: string; address: string }[];
}

export const repoRoot = resolve(import.meta.dirname, '../../..');

/** The lab named by KCLUSTER_TEST_LAB; fails loudly (never skips) when it is missing. */
export function testLab(): TestLab {
  const dir = process.env['KCLUSTER_TEST_LAB'];
  if (!dir || !existsSync(join(dir, 'inventory.yaml'))) {
    throw new Error(
      'integration tests need the test lab: run them through `npm test` (test/run-all.sh), ' +
        'or `kcluster lab up --name kctest` and KCLUSTER_TEST_LAB=~/.kcluster/labs/kctest',
    );
  }
  const inventoryFile = join(dir, 'inventory.yaml');
  const doc = parse(readFileSync(inventoryFile, 'utf8')) as { hosts: { name: string; address: string }[] };
  return {
    dir,
    inventoryFile,
    sshConfigFile: join(dir, 'ssh_config'),
    knownHostsFile: join(dir, 'known_hosts'),
    keyFile: join(dir, 'id_ed25519'),
    hosts: doc.hosts.map((h) => ({ name: h.name, address: h.address })),
  };
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the built CLI (bin/kcluster.js) as a user would, with CI=true and no TTY. */
export async function kcluster(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(repoRoot, 'bin/kcluster.js'), ...args], {
      env: { ...process.env, CI: 'true', NO_COLOR: '1', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Run a command on a lab host through the OpenSSH client (independent of kcluster's SSH code). */
export async function sshHost(lab: TestLab, host: string, command: string): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run('ssh', ['-F', lab.sshConfigFile, host, command], { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** NDJSON events printed by `--output json`. */
export function parseEvents(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A copy of the lab inventory (in a temp dir) with an edit applied to the parsed document. */
export function inventoryVariant(lab: TestLab, edit: (doc: Record<string, unknown>) => void): string {
  const doc = parse(readFileSync(lab.inventoryFile, 'utf8')) as Record<string, unknown>;
  edit(doc);
  const file = join(mkdtempSync(join(tmpdir(), 'kcluster-inv-')), 'inventory.yaml');
  writeFileSync(file, stringify(doc));
  return file;
}

/**
 * Makes a login user `deploy` on a lab host whose sudo asks for `password` (set with chpasswd
 * from stdin), and returns an inventory in which that host logs in as deploy and becomes root
 * with the password read from KC_TEST_SUDO_PASSWORD.
 */
export async function sudoDeployUser(lab: TestLab, host: string, password: string): Promise<string> {
  const setup = await sshHost(
    lab,
    host,
    [
      'id deploy >/dev/null 2>&1 || useradd -m -s /bin/sh deploy',
      'install -d -m 700 -o deploy -g deploy /home/deploy/.ssh',
      'install -m 600 -o deploy -g deploy /root/.ssh/authorized_keys /home/deploy/.ssh/authorized_keys',
      "echo 'deploy ALL=(ALL:ALL) ALL' > /etc/sudoers.d/deploy && chmod 440 /etc/sudoers.d/deploy",
    ].join(' && '),
  );
  if (setup.code !== 0) throw new Error(`could not create the deploy user on ${host}: ${setup.stderr}`);
  await new Promise<void>((resolve, reject) => {
    const child = execFile('ssh', ['-F', lab.sshConfigFile, host, 'chpasswd'], (error) => (error ? reject(error) : resolve()));
    child.stdin?.end(`deploy:${password}\n`);
  });
  return inventoryVariant(lab, (doc) => {
    const hosts = doc['hosts'] as Record<string, unknown>[];
    const i = hosts.findIndex((h) => h['name'] === host);
    hosts[i] = { ...hosts[i], user: 'deploy', become: { method: 'sudo', passwordEnv: 'KC_TEST_SUDO_PASSWORD' } };
  });
}
