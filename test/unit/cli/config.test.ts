// `kcluster config` prints the effective inventory: what the file writes, every default filled
// in and marked, in the inventory's shape. Given back to kcluster it validates and resolves to
// the same model as the original (the round trip), for the fixtures, the examples and the
// template users copy.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from './support/run-cli.js';
import { writeFakeBundle } from '../support/fake-bundle.js';
import { formatDiagnostic, loadInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { effectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { schemaEntries, type SchemaNode } from '../../../src/kubernetes/inventory/schema-entries.js';

const root = mkdtempSync(join(tmpdir(), 'kc-config-'));
// The credentials the examples name (a registry's, the control planes' store upload), set as for apply.
const env = {
  SSH_AUTH_SOCK: '/x',
  REGISTRY_USER: 'u',
  REGISTRY_PASSWORD: 'p',
  KCLUSTER_SNAPSHOT_ACCESS_KEY_ID: 'id',
  KCLUSTER_SNAPSHOT_SECRET_ACCESS_KEY: 'secret',
};

async function load(file: string): Promise<Inventory> {
  const result = await loadInventory(file, { env });
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  return result.inventory;
}

const schema = JSON.parse(readFileSync('src/kubernetes/inventory/inventory.schema.json', 'utf8')) as SchemaNode;
/** The shipped vars' defaults (the roles' own): config writes them in the inventory's vars. */
const VAR_DEFAULTS = Object.fromEntries(
  schemaEntries(schema)
    .filter((e) => /^vars\.[^.]+$/.test(e.path) && e.node.default !== undefined)
    .map((e) => [e.path.slice(5), e.node.default]),
);

/** The resolved model without where it was read from, each host's vars over the roles' defaults. */
async function model(file: string): Promise<unknown> {
  const { file: _file, hosts, ...rest } = effectiveConfig(await load(file)) as { file: string; hosts: { source: string; vars: object }[] };
  return { ...rest, hosts: hosts.map(({ source: _source, vars, ...host }) => ({ ...host, vars: { ...VAR_DEFAULTS, ...vars } })) };
}

/** A copy of `file` in its own folder whose bundle (when it names one) lists what it needs. */
async function installable(file: string): Promise<string> {
  const dir = mkdtempSync(join(root, 'copy-'));
  const copy = join(dir, basename(file));
  const bundle = writeFakeBundle(join(dir, 'bundle'), [await load(file)]);
  writeFileSync(copy, readFileSync(file, 'utf8').replace(/^(\s+bundle:\s*)\S+/m, `$1${bundle}`));
  return copy;
}

const EXAMPLES = [
  'inventory.example.yaml',
  'examples/minimal.yaml',
  'examples/ha-load-balancer.yaml',
  'examples/ha-local-proxy.yaml',
  'examples/docker.yaml',
  'examples/air-gapped.yaml',
  'examples/team-state-store.yaml',
];

describe('kcluster config', () => {
  it('keeps what the file writes, fills every default marked # default, and derived values marked # computed', async () => {
    const r = await runCli(['config', '-i', 'test/fixtures/inventory/valid-ha.yaml'], env);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out.split('\n')[0]).toBe('# yaml-language-server: $schema=../../../src/kubernetes/inventory/inventory.schema.json');
    expect(r.out).toContain('# kcluster config: the effective inventory of');
    expect(r.out).toMatch(/^ {4}host: 10\.10\.0\.100$/m); // written: no mark
    expect(r.out).toMatch(/^ {4}port: 6443 # default$/m);
    expect(r.out).toMatch(/^ {2}kubernetesVersion: v1\.\d+\.\d+ # default$/m);
    expect(r.out).toMatch(/^ {4}cacheDir: \S+ # computed$/m);
    expect(r.out).toMatch(/^stateDir: \S+ # computed$/m);
    const doc = parse(r.out) as { cluster: { apiEndpoint: object; proxy?: unknown; apiServer: { oidc?: unknown } } };
    expect(doc.cluster.apiEndpoint).toEqual({ host: '10.10.0.100', port: 6443 });
    // Maps whose presence means something are not created for their defaults.
    expect(doc.cluster.proxy).toBeUndefined();
    expect(doc.cluster.apiServer.oidc).toBeUndefined();
  });

  it('fills a shared definition at every place that uses it (cluster.scheduler as cluster.controllerManager), and names each key left unset with what its absence means (issue 44)', async () => {
    const r = await runCli(['config', '-i', 'test/fixtures/inventory/valid-ha.yaml'], env);
    const doc = parse(r.out) as { cluster: { scheduler: unknown; controllerManager: unknown } };
    expect(doc.cluster.scheduler).toEqual({ extraFiles: [], extraArgs: {} });
    expect(doc.cluster.scheduler).toEqual(doc.cluster.controllerManager);
    for (const key of ['vars.ociRuntimeBinary', 'vars.kubeProxyConntrackMaxPerCore', 'vars.readyTimeoutSeconds', 'vars.controlPlaneTaint'])
      expect(r.out).toMatch(new RegExp(`^#   ${key.replace('.', '\\.')}: \\S`, 'm'));
    // A key the file writes is not among them.
    expect(r.out).not.toMatch(/^# {3}cluster\.apiEndpoint\.host:/m);
  });

  it('-o json is the same document; --resolved prints the resolved model the roles read', async () => {
    const yaml = await runCli(['config', '-i', 'test/fixtures/inventory/valid-ha.yaml'], env);
    const json = await runCli(['config', '-i', 'test/fixtures/inventory/valid-ha.yaml', '-o', 'json'], env);
    expect(JSON.parse(json.out)).toEqual(parse(yaml.out));
    const resolved = await runCli(['config', '-i', 'test/fixtures/inventory/valid-ha.yaml', '--resolved', '-o', 'json'], env);
    const hosts = (JSON.parse(resolved.out) as { hosts: { become: unknown }[] }).hosts;
    expect(hosts[0]!.become).toEqual({ enabled: true, method: 'sudo', passwordEnv: 'KC_SUDO' });
  });

  it.each(['test/fixtures/inventory/valid-ha.yaml', 'test/fixtures/inventory/even-etcd.yaml'])(
    '%s: the output resolves to the same model as the file',
    async (file) => {
      const r = await runCli(['config', '-i', file], env);
      const out = join(mkdtempSync(join(root, 'out-')), 'inventory.yaml');
      writeFileSync(out, r.out);
      expect(await model(out)).toEqual(await model(file));
    },
  );

  it.each(EXAMPLES)('%s: the output validates and resolves to the same model (the round trip)', async (file) => {
    const copy = await installable(file);
    const r = await runCli(['config', '-i', copy], env);
    expect(r.code).toBe(0);
    const out = join(mkdtempSync(join(root, 'out-')), 'inventory.yaml');
    writeFileSync(out, r.out);
    const v = await runCli(['validate', '-i', out], env);
    expect(v.err.split('\n').filter((l) => l !== '' && !/warning: ssh\.keyFile: key file .* does not exist$/.test(l))).toEqual([]);
    expect(v).toMatchObject({ code: 0, out: expect.stringMatching(/: valid \(/) });
    expect(await model(out)).toEqual(await model(copy));
  });
});
