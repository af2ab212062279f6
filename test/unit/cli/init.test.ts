// `kcluster init`: the starter inventory it writes validates with the real loader and the
// validate command; bad arguments are refused with exit 2, every problem named, nothing written.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, type CliResult } from './support/run-cli.js';
import { writeFakeBundle } from '../support/fake-bundle.js';
import { addressProblem, initHosts } from '../../../src/cli/init/init-hosts.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../../src/kubernetes/inventory/defaults.js';

const cli = (args: string[], cwd?: string): Promise<CliResult> => runCli(args, {}, cwd);

const dir = mkdtempSync(join(tmpdir(), 'kc-init-'));
const home = join(dir, 'home');
mkdirSync(join(home, '.ssh'), { recursive: true });
const key = join(home, '.ssh', 'id_ed25519');
writeFileSync(key, 'a key\n', { mode: 0o600 });

/** Every error and warning the loader gives for `text`, as printed. */
function problems(text: string): string[] {
  const file = join(dir, 'starter.yaml');
  const result = parseInventory(text, file, { env: {}, homeDir: home });
  return [...(result.ok ? [] : result.errors), ...result.warnings].map(formatDiagnostic);
}

const EXAMPLE = ['init', '--control-plane', '10.0.0.1', '--worker', '10.0.0.2', '--worker', '10.0.0.3', '--user', 'debian', '--key', key];

describe('kcluster init', () => {
  it('writes a commented inventory that loads without an error or a warning', async () => {
    const r = await cli(EXAMPLE);
    expect(r.code).toBe(0);
    expect(problems(r.out)).toEqual([]);
    const doc = parse(r.out) as { cluster: Record<string, unknown>; ssh: Record<string, unknown>; hosts: unknown[] };
    expect(doc.hosts).toEqual([
      { name: 'cp1', address: '10.0.0.1', roles: ['control-plane'] },
      { name: 'worker1', address: '10.0.0.2', roles: ['worker'] },
      { name: 'worker2', address: '10.0.0.3', roles: ['worker'] },
    ]);
    expect(doc.ssh).toEqual({ user: 'debian', keyFile: key });
    expect(doc.cluster['kubernetesVersion']).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(r.out).toMatch(/^# yaml-language-server: \$schema=\.\.?\/\S*src\/kubernetes\/inventory\/inventory\.schema\.json\n/);
    // Both paths are this installation's, relative to the folder the inventory is for (the
    // working folder here: no machine's absolute path in a file that gets committed), and both
    // exist (the package ships docs/: issue 44).
    const schema = /\$schema=(\S+)/.exec(r.out)![1]!;
    const reference = /^# (\.\.?\/\S*docs\/users\/inventory-reference\.md)$/m.exec(r.out)?.[1];
    expect(existsSync(resolve(process.cwd(), schema))).toBe(true);
    expect(reference !== undefined && existsSync(resolve(process.cwd(), reference))).toBe(true);
    expect(r.out.split('\n').filter((l) => l.trimStart().startsWith('#')).length).toBeGreaterThan(5);
    expect(r.err).toContain('no --bundle: cluster.artifacts.bundle is a placeholder marked CHANGE');
  });

  it('--file writes a new file that kcluster validate accepts, and never overwrites one', async () => {
    const file = join(dir, 'ha.yaml');
    const args = [
      'init',
      '--control-plane',
      'a=10.0.0.11',
      '--control-plane',
      'b=10.0.0.12',
      '--control-plane',
      'c=10.0.0.13',
      '--worker',
      'w1=node-w1.lan',
      '--api-endpoint',
      '10.0.0.10',
      '--bundle',
      join(dir, 'bundle'),
      '--agent',
      '--container-runtime',
      'docker',
      '--name',
      'prod',
      '--file',
      'ha.yaml',
    ];
    const r = await cli(args, dir);
    expect(r).toMatchObject({ code: 0, out: '' });
    const text = readFileSync(file, 'utf8');
    expect(problems(text)).toEqual([]);
    // validate checks the bundle lists what the inventory needs: one that does, at --bundle.
    const loaded = parseInventory(text, file, { env: {}, homeDir: home });
    if (loaded.ok) writeFakeBundle(join(dir, 'bundle'), [loaded.inventory]);
    const v = await cli(['validate', '-i', file]);
    expect(v).toMatchObject({ code: 0, out: `${file}: valid (4 hosts: 3 control planes, 1 workers, 3 etcd members)\n` });
    const doc = parse(text) as { cluster: { name: string; containerRuntime: string; apiEndpoint: object; artifacts: object } };
    expect(doc.cluster).toMatchObject({
      name: 'prod',
      containerRuntime: 'docker',
      apiEndpoint: { host: '10.0.0.10', port: 6443 },
      artifacts: { source: 'bundle', bundle: join(dir, 'bundle') },
    });

    const again = await cli(args, dir);
    expect(again.code).toBe(2);
    expect(again.err).toContain(`${file} exists already: kcluster init never overwrites a file`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses bad addresses and names with exit 2, each with its flag, and writes nothing', async () => {
    const file = join(dir, 'bad.yaml');
    const r = await cli(['init', '--control-plane', '10.0.0.256', '--worker', 'bad host', '--worker', 'W1=10.0.0.3', '--worker', '10.0.0.3', '--file', file]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.split('\n').filter(Boolean)).toEqual([
      'kcluster: init: --control-plane 10.0.0.256: the address "10.0.0.256" is not an IPv4 address (four numbers 0-255, such as 10.0.0.1)',
      "kcluster: init: --worker bad host: the address \"bad host\" is neither an IPv4 address nor a DNS name (letters, digits, '-' and '.')",
      "kcluster: init: --worker W1=10.0.0.3: the name \"W1\" is not a node name (lowercase letters, digits, '-' and '.'); write NAME=ADDRESS, e.g. cp1=10.0.0.1",
      'kcluster: init: the address 10.0.0.3 is given twice: each host needs its own',
      'kcluster: nothing was written (kcluster init --help has examples)',
    ]);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses an inventory without a control plane, and two ways to log in', async () => {
    const r = await cli(['init', '--worker', '10.0.0.2', '--key', key, '--agent']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('kcluster: init: no control plane: give at least one --control-plane ADDRESS');
    expect(r.err).toContain('kcluster: init: --key and --agent: give one way to log in, not both');
  });

  it("the README's init command writes the README's inventory, and it validates", async () => {
    const readme = readFileSync('README.md', 'utf8').replace(/\n/g, ' ');
    const command = /`kcluster (init [^`]+)`/.exec(readme)?.[1];
    expect(command).toBeDefined();
    const cwd = mkdtempSync(join(dir, 'readme-'));
    const r = await cli(command!.split(/\s+/), cwd);
    expect(r.code).toBe(0);
    const text = readFileSync(join(cwd, 'inventory.yaml'), 'utf8');
    expect(problems(text)).toEqual([]);
    const fence = /```yaml\n# inventory\.yaml\n([\s\S]*?)```/.exec(readFileSync('README.md', 'utf8'))?.[1];
    const { hosts, ssh, cluster } = parse(fence!) as { hosts: unknown; ssh: unknown; cluster: { name: string } };
    expect(parse(text)).toMatchObject({ hosts, ssh, cluster: { name: cluster.name } });
  });

  it('--help shows an example and exits 0', async () => {
    const r = await cli(['init', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Examples:\n  # one control plane, two workers');
    expect(r.out).toContain('kcluster init --control-plane 10.0.0.1 --worker 10.0.0.2 --worker 10.0.0.3 --user debian --key ~/.ssh/id_ed25519');
  });
});

describe('init host arguments', () => {
  it('accepts IPv4 addresses and DNS names, refuses the rest', () => {
    for (const good of ['10.0.0.1', 'node1', 'node-1.example.com', 'Host.LAN']) expect(addressProblem(good), good).toBeUndefined();
    for (const bad of ['', '1.2.3', '300.1.1.1', 'a b', '-x', 'x;y', '$(id)', 'a..b']) expect(addressProblem(bad), bad).toBeDefined();
  });
  it('names hosts cpN and workerN unless NAME= is given', () => {
    expect(initHosts(['10.0.0.1', 'main=10.0.0.2'], ['10.0.0.3']).hosts.map((h) => h.name)).toEqual(['cp1', 'main', 'worker1']);
  });
});
