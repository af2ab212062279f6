// End to end, the README's install and quick start as a newcomer runs them, from the blocks
// marked `<!-- quick-start: ... -->` in README.md: kcluster packed (`npm pack`) and installed
// (`npm install -g`, into a temporary prefix instead of the system's) so that the `kcluster`
// run is the installed package, not the source tree; then the inventory block, and every line
// of the commands block, run as written with that `kcluster`, in a temporary HOME, against 3
// fresh lab hosts that stand in for "your machines": they log in as `admin`, a user with sudo
// and no password (root's key is taken away, so nothing else can log in). What differs from the README, and why:
// - `git clone` and `npm ci` are not run: the tree the test runs in is that clone, installed;
// - the inventory's addresses are the lab hosts', the key the lab's (copied to the temporary
//   HOME's ~/.ssh/id_ed25519, the README's path), the bundle folder the one the bundle build
//   block printed (as the README says to do), and the lab's adaptations (vars real machines do
//   not need: see src/lab/lab-inventory.ts) are added;
// - `kubectl` is the bundle's.
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { kcluster as repoKcluster } from '../integration/support/test-lab.js';
import { bundleDir, kubectlBinary, recapOf, until } from './support/e2e-support.js';

// Not in npm test (CI's 45 minutes): `npm run test:extended` runs it (test/run-extended.sh).
const extended = process.env['KCLUSTER_E2E_EXTENDED'] === '1';
const NAME = 'kceqs';
const NET = '10.231.13';
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const repo = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'kc-quick-start-'));
const home = join(work, 'home');
const prefix = join(work, 'prefix');
const installed = join(prefix, 'bin', 'kcluster');
const README_ADDRESSES: Record<string, string> = { '192.168.56.11': `${NET}.11`, '192.168.56.21': `${NET}.12`, '192.168.56.22': `${NET}.13` };

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd ?? work, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The code block that follows `<!-- quick-start: NAME -->` in the README. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const at = readme.indexOf(`<!-- quick-start: ${name} -->`);
  if (at < 0) throw new Error(`README.md has no <!-- quick-start: ${name} --> block`);
  const fenced = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!fenced) throw new Error(`README.md: no code block after <!-- quick-start: ${name} -->`);
  return fenced[1]!;
}

/** A block's commands: one a line, comments and continuation comments dropped. */
const commandsOf = (block: string): string[][] =>
  block
    .split('\n')
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .replace(/^#.*$/, '')
        .trim(),
    )
    .filter(Boolean)
    .flatMap((line) => line.split(' && '))
    .map((command) => command.trim().split(/\s+/));

const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: home, PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}` });

beforeAll(async () => {
  if (!extended) return;
  bundleDir();
  await repoKcluster(['lab', 'down', '--name', NAME]);
  const up = await repoKcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--privileged', '--subnet', `${NET}.0/24`]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);
  // "Your machines": a login user with passwordless sudo, reached with the key the README names.
  for (const i of [1, 2, 3]) {
    const setup = [
      'id admin >/dev/null 2>&1 || useradd -m -s /bin/sh admin',
      'install -d -m 700 -o admin -g admin /home/admin/.ssh',
      'install -m 600 -o admin -g admin /root/.ssh/authorized_keys /home/admin/.ssh/authorized_keys',
      "echo 'admin ALL=(ALL:ALL) NOPASSWD: ALL' > /etc/sudoers.d/admin && chmod 440 /etc/sudoers.d/admin",
      // root cannot log in any more: kcluster can only come in as admin and become root with sudo.
      'mv /root/.ssh/authorized_keys /root/.ssh/authorized_keys.quick-start',
    ].join(' && ');
    const made = await run('ssh', ['-F', join(labDir, 'ssh_config'), `${NAME}${i}`, setup]);
    if (made.code !== 0) throw new Error(`could not make the admin user on ${NAME}${i}: ${made.stderr}`);
  }
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  copyFileSync(join(labDir, 'id_ed25519'), join(home, '.ssh', 'id_ed25519'));
  chmodSync(join(home, '.ssh', 'id_ed25519'), 0o600);
}, 300_000);

afterAll(async () => {
  if (extended && !process.env['KCLUSTER_KEEP_E2E_LAB']) await repoKcluster(['lab', 'down', '--name', NAME]);
});

describe.runIf(extended)("the README's install and quick start, as written, on fresh machines with a sudo user", () => {
  it('packs and installs kcluster, then brings up a 3-node cluster with the installed binary; a second apply changes nothing', async () => {
    // Install: `npm pack` in the clone, `npm install -g` of what it wrote (into a temporary prefix).
    const install = commandsOf(readmeBlock('install'));
    expect(install.map((c) => c.slice(0, 2).join(' '))).toEqual(['git clone', 'cd kcluster', 'npm ci', 'npm pack', 'npm install', 'kcluster --version']);
    const packed = await run('npm', ['pack', '--pack-destination', work], { cwd: repo });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = readdirSync(work).find((f) => /^kcluster-.*\.tgz$/.test(f));
    expect(tarball, packed.stdout).toBeDefined();
    const global = await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball!)], { cwd: work });
    expect(global.code, global.stderr).toBe(0);
    const version = await run(installed, ['--version'], { env: env() });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string }).version);

    // The inventory block, with the lab's addresses and adaptations.
    let inventory = readmeBlock('inventory');
    for (const [readme, lab] of Object.entries(README_ADDRESSES)) inventory = inventory.replaceAll(readme, lab);
    const doc = parse(inventory) as Record<string, unknown>;
    const labVars = (parse(readFileSync(join(labDir, 'inventory.yaml'), 'utf8')) as { vars?: Record<string, unknown> }).vars;
    const write = (bundle?: string) => {
      const next = { ...doc, ...(labVars ? { vars: labVars } : {}) } as { cluster: { artifacts: { bundle: string } } };
      if (bundle !== undefined) next.cluster.artifacts.bundle = bundle;
      writeFileSync(join(work, 'inventory.yaml'), stringify(next));
    };
    write();

    // Every line of the commands block, in order, with the installed kcluster.
    const lines = commandsOf(readmeBlock('commands'));
    expect(lines.map((c) => `${c[0]} ${c[1]}`)).toEqual([
      'kcluster bundle',
      'kcluster validate',
      'kcluster trust',
      'kcluster apply',
      'kcluster apply',
      'kcluster kubeconfig',
      'kubectl --kubeconfig',
    ]);
    const expectedCode: Record<string, number> = { 'kcluster apply -i inventory.yaml --check --diff': 3 };
    const timings: string[] = [];
    for (const command of lines) {
      const [program, ...args] = command;
      const started = Date.now();
      const result = await run(program === 'kubectl' ? kubectlBinary() : installed, args, { env: env() });
      timings.push(`${command.join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      expect(result.code, `${command.join(' ')}\n${result.stderr}\n${result.stdout.slice(-3000)}`).toBe(expectedCode[command.join(' ')] ?? 0);
      // As the README says: the bundle's folder is the last line printed; put it in the inventory.
      if (command[1] === 'bundle') write(result.stdout.trim().split('\n').at(-1));
      if (program === 'kubectl') expect(result.stdout).toMatch(/cp1 .*\n/);
    }
    console.log(`quick start: ${timings.join('; ')}`);
    await until('3 nodes Ready', 240_000, async () => {
      const nodes = await run(kubectlBinary(), ['--kubeconfig', join(work, 'admin.conf'), 'get', 'nodes', '--no-headers']);
      const ready = nodes.stdout
        .split('\n')
        .filter((l) => / Ready /.test(l))
        .map((l) => l.split(/\s+/)[0]);
      return ready.length === 3 ? ready : undefined;
    });

    const again = await run(installed, ['apply', '-i', 'inventory.yaml', '--output', 'json'], { env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(recapOf(again.stdout).map((h) => h.changed)).toEqual([0, 0, 0]);
  });
});
