// The CLI as a function: exit codes and messages for bad input, without any host.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandsToLoad } from '../../../src/cli/main.js';
import { runCli, type CliResult } from './support/run-cli.js';

const cli = (args: string[]): Promise<CliResult> => runCli(args);

const dir = mkdtempSync(join(tmpdir(), 'kc-cli-'));
const inventory = join(dir, 'inv.yaml');
// release images need a source: validate refuses what apply would (checkClusterInputs)
writeFileSync(
  inventory,
  'cluster:\n  artifacts: { imageRepository: registry.example/k8s }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n',
);

describe('kcluster CLI', () => {
  it('--help exits 0 and lists every command', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: kcluster');
    for (const name of commandsToLoad([])) expect(r.out).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });
  it('bundle build refuses contradictory or unknown versions before it builds anything', async () => {
    const both = await cli(['bundle', 'build', '-i', inventory, '--kubernetes-version', 'v1.35.8']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('takes one of -i INVENTORY, --kubernetes-version, --all-releases or --upgrade-pair');
    const every = await cli(['bundle', 'build', '-i', inventory, '--every-component']);
    expect(every.code).toBe(2);
    expect(every.err).toContain('--every-component goes with the version options');
    const unknown = await cli(['bundle', 'build', '--kubernetes-version', 'v1.29.3']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      /^kcluster: --kubernetes-version v1\.29\.3: kcluster knows the component versions for Kubernetes .*not 1\.29: use one of those minors \(known releases: v1\.37\.2, /,
    );
    expect(unknown.out).toBe('');
  });
  it('bundle build -i refuses a cluster of two architectures, or an --arch its hosts do not have, naming the hosts', async () => {
    const mixed = join(dir, 'mixed.yaml');
    writeFileSync(
      mixed,
      'cluster:\n  artifacts: { imageRepository: registry.example/k8s }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: a1, address: 10.0.0.2, arch: arm64 }\n',
    );
    const two = await cli(['bundle', 'build', '-i', mixed]);
    expect(two.code).toBe(2);
    expect(two.err).toBe(
      `kcluster: ${mixed}: a1 (${mixed}:5:5) is arm64, the bundle would be amd64: a bundle holds one architecture, so one cluster's hosts share one (give them the same arch, or build with --kubernetes-version and --arch)\n`,
    );
    const other = await cli(['bundle', 'build', '-i', inventory, '--arch', 'arm64']);
    expect(other.code).toBe(2);
    expect(other.err).toContain(`cp1 (${inventory}:4:5) is amd64, the bundle would be arm64`);
    expect(other.out).toBe('');
  });

  it('loads only the command being run, and every command for help or an unknown one', () => {
    expect(commandsToLoad(['run', 'x.mjs'])).toEqual(['run']);
    expect(commandsToLoad(['remove-node', 'w1'])).toEqual(['remove-node']);
    const all = commandsToLoad([]);
    expect(all).toHaveLength(21);
    expect(commandsToLoad(['--help'])).toEqual(all);
    expect(commandsToLoad(['aply'])).toEqual(all);
  });
  it('an unknown command exits 2 and names it', async () => {
    const r = await cli(['aply']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command 'aply'/);
  });
  it('an unknown option exits 2', async () => {
    expect((await cli(['validate', '--frobnicate'])).code).toBe(2);
  });
  it('validate: a missing file exits 2 with its name', async () => {
    const r = await cli(['validate', '-i', join(dir, 'missing.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('missing.yaml:1:1: cannot read the inventory: no such file');
  });
  it('validate: a good inventory exits 0', async () => {
    const r = await cli(['validate', '-i', inventory]);
    expect(r).toMatchObject({ code: 0, out: `${inventory}: valid (1 hosts: 1 control planes, 0 workers, 1 etcd members)\n` });
  });
  it('config -o json prints the effective configuration', async () => {
    const r = await cli(['config', '-i', inventory, '-o', 'json']);
    expect(JSON.parse(r.out).cluster.kubernetesVersion).toMatch(/^v1\./);
  });
  it('run: unknown playbooks and modules without a playbook exit 2', async () => {
    expect((await cli(['run', 'nope', '-i', inventory])).err).toContain('unknown playbook "nope"');
    const module = join(dir, 'empty.mjs');
    writeFileSync(module, 'export const x = 1;\n');
    const r = await cli(['run', module, '-i', inventory]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('exports no playbook');
  });
  it('apply: an audit policy the API server would refuse exits 2 with its file:line:col, before any host is touched', async () => {
    const policy = join(dir, 'audit-policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadta\n');
    const withPolicy = join(dir, 'inv-audit.yaml');
    writeFileSync(
      withPolicy,
      `stateDir: ${join(dir, 'state')}\ncluster:\n  audit: { policyFile: ./audit-policy.yaml }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n`,
    );
    const r = await cli(['apply', '-i', withPolicy, '--check']);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`${policy}:4:12: rules[0].level: must be one of None, Metadata, Request, RequestResponse (got "Metadta")`);
    expect(r.err).toContain(`the audit policy that cluster.audit.policyFile names in ${withPolicy} would stop the API server from starting`);
  });
  it('run: an unknown --limit term exits 2 before connecting anywhere', async () => {
    const r = await cli(['run', 'demo', '-i', inventory, '--limit', 'nosuchhost', '--output', 'json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--limit: no host or group named "nosuchhost"');
  });
});
