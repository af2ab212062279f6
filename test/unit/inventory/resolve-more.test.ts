// The effective configuration from fixture files and temp folders: var precedence through every
// level, ssh inheritance and overrides, path resolution, key fallbacks, durations, the schema.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { renderEffectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';
import { formatDiagnostic, loadInventory, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { compileInventorySchema } from '../../../src/kubernetes/inventory/schema-diagnostics.js';

const root = mkdtempSync(join(tmpdir(), 'kc-resolve-'));

function load(text: string, options: { env?: NodeJS.ProcessEnv; homeDir?: string; file?: string } = {}): Inventory {
  const result = parseInventory(text, options.file ?? join(root, 'inventory.yaml'), {
    env: options.env ?? { SSH_AUTH_SOCK: '/a' },
    homeDir: options.homeDir ?? join(root, 'home'),
  });
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  return result.inventory;
}

const cp = '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

describe('inventory resolution from the HA fixture', async () => {
  const result = await loadInventory('test/fixtures/inventory/valid-ha.yaml', { env: {}, homeDir: join(root, 'home') });
  const inv = result.ok ? result.inventory : undefined;
  const host = (name: string) => inv?.hosts.find((h) => h.name === name);

  it('loads without errors or warnings', () => {
    expect(result.ok ? result.warnings : result.errors.map(formatDiagnostic)).toEqual([]);
  });

  it('merges vars: cluster < all < control-plane/worker < custom group < host, objects deeply, arrays replaced', () => {
    expect(inv?.hosts.map((h) => h.vars['motd'])).toEqual(['control-plane', 'control-plane', 'control-plane', 'worker', 'gpu']);
    expect(host('w2')?.vars['ntp']).toEqual({ servers: ['pool-gpu'], maxPoll: 12 });
    expect(host('w1')?.vars['ntp']).toEqual({ servers: ['pool-a'], maxPoll: 10 });
  });

  it('gives every host its own copy of the vars', () => {
    (host('cp1')?.vars['ntp'] as { maxPoll: number }).maxPoll = 99;
    expect((host('cp2')?.vars['ntp'] as { maxPoll: number }).maxPoll).toBe(10);
  });

  it('makes the control planes the etcd members and lists the groups', () => {
    expect(inv?.groups).toEqual({
      all: ['cp1', 'cp2', 'cp3', 'w1', 'w2'],
      'control-plane': ['cp1', 'cp2', 'cp3'],
      etcd: ['cp1', 'cp2', 'cp3'],
      worker: ['w1', 'w2'],
      gpu: ['w2'],
    });
    expect(host('cp1')?.roles).toEqual(['control-plane', 'etcd']);
  });

  it('inherits become from the ssh defaults, and needs none for root', () => {
    expect(host('cp1')?.become).toEqual({ enabled: true, method: 'sudo', passwordEnv: 'KC_SUDO' });
    expect(host('w1')?.become.enabled).toBe(false);
  });

  it('uses the endpoint of the host a bastion names', () => {
    expect(host('w2')?.bastion).toEqual({ name: 'cp1', address: '10.10.0.11', port: 22, user: 'deploy', agent: true });
    expect(host('w2')?.source).toBe('test/fixtures/inventory/valid-ha.yaml:39:5');
  });

  it('renders the effective configuration: every default, no YAML aliases, only env var names', () => {
    if (!inv) throw new Error('fixture did not load');
    const yaml = renderEffectiveConfig(inv, 'yaml');
    expect(yaml).not.toMatch(/[&*]a\d/);
    expect(parse(yaml)).toEqual(JSON.parse(renderEffectiveConfig(inv, 'json')));
    const json = JSON.parse(renderEffectiveConfig(inv, 'json')) as { cluster: unknown; ssh: unknown; stateDir: string };
    expect(json.cluster).toEqual({
      name: 'ha',
      kubernetesVersion: 'v1.37.2',
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      clusterDomain: 'cluster.local',
      apiEndpoint: { host: '10.10.0.100', port: 6443 },
      containerRuntime: 'containerd',
      cni: 'flannel',
      audit: { maxAgeDays: 30, maxBackups: 10, maxSizeMB: 100 },
      podSecurity: { enforce: 'baseline', warn: 'restricted', audit: 'restricted', exemptNamespaces: [] },
      etcdSnapshots: { enabled: true, schedule: '*-*-* 00/12:00:00', keep: 5 },
      featureGates: {},
      extraArgs: { apiServer: {}, controllerManager: {}, scheduler: {}, etcd: {} },
      apiServerCertSANs: [],
      extraFiles: { apiServer: [], controllerManager: [], scheduler: [] },
      dns: { upstreams: [], stubDomains: {} },
      kubeProxy: { mode: 'iptables', config: {} },
      metricsServer: { enabled: true },
      localPathStorage: { enabled: false, path: '/opt/local-path-provisioner' },
      networkPolicy: { enabled: true },
      registries: {},
      manifests: [],
      charts: [],
      artifacts: { kind: 'release', mirrors: {}, cacheDir: join(root, 'home', '.kcluster', 'cache', 'artifacts'), uploadConcurrency: 8, fanOut: true },
    });
    expect(json.ssh).toEqual({
      connectTimeoutMs: 10_000,
      keepaliveIntervalMs: 5_000,
      keepaliveCountMax: 3,
      commandIdleTimeoutMs: 1_800_000,
      connectRetries: 3,
    });
    expect(json.stateDir).toBe(join(root, 'home', '.kcluster', 'ha'));
    expect(yaml).toContain('passwordEnv: KC_SUDO');
  });
});

describe('ssh settings and paths', () => {
  it('resolves relative paths against the inventory folder and expands ~', () => {
    const dir = join(root, 'paths', 'site');
    mkdirSync(dir, { recursive: true });
    const inv = load(
      `stateDir: state\ncluster:\n  artifacts: { source: bundle, bundle: ../bundle.tar }\nssh:\n  keyFile: keys/id\n  knownHostsFile: ./known_hosts\nhosts:\n${cp}  - { name: w1, address: 10.0.0.2, keyFile: ~/.ssh/w1 }\n  - { name: w2, address: 10.0.0.3, keyFile: /etc/kc/w2 }\n`,
      { file: join(dir, 'inv.yaml'), homeDir: '/home/me' },
    );
    expect(inv.file).toBe(join(dir, 'inv.yaml'));
    expect(inv.stateDir).toBe(join(dir, 'state'));
    expect(inv.cluster.artifacts).toEqual({
      kind: 'bundle',
      bundle: join(root, 'paths', 'bundle.tar'),
      mirrors: {},
      cacheDir: '/home/me/.kcluster/cache/artifacts',
      uploadConcurrency: 8,
      fanOut: true,
    });
    expect(inv.ssh.knownHostsFile).toBe(join(dir, 'known_hosts'));
    expect(inv.hosts.map((h) => h.ssh.keyFile)).toEqual([join(dir, 'keys', 'id'), '/home/me/.ssh/w1', '/etc/kc/w2']);
  });

  it('lets a host override every inherited ssh setting', () => {
    const inv = load(
      `ssh: { user: ops, port: 2200, keyFile: /k/default, keyPassphraseEnv: KP, passwordEnv: PW }\nhosts:\n${cp}` +
        '  - { name: w1, address: 10.0.0.2, user: admin, port: 22, keyFile: /k/w1, agent: true, keyPassphraseEnv: KP_W1, passwordEnv: PW_W1 }\n',
    );
    expect(inv.hosts[0]!.ssh).toEqual({
      address: '10.0.0.1',
      port: 2200,
      user: 'ops',
      keyFile: '/k/default',
      agent: false,
      keyPassphraseEnv: 'KP',
      passwordEnv: 'PW',
    });
    expect(inv.hosts[1]!.ssh).toEqual({
      address: '10.0.0.2',
      port: 22,
      user: 'admin',
      keyFile: '/k/w1',
      agent: true,
      keyPassphraseEnv: 'KP_W1',
      passwordEnv: 'PW_W1',
    });
  });

  it('falls back to ~/.ssh/id_ed25519, then ~/.ssh/id_rsa, when no agent is running', () => {
    const home = mkdtempSync(join(tmpdir(), 'kc-keys-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
    expect(load(`hosts:\n${cp}`, { env: {}, homeDir: home }).hosts[0]!.ssh).toMatchObject({ keyFile: join(home, '.ssh', 'id_rsa'), agent: false });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'k');
    expect(load(`hosts:\n${cp}`, { env: {}, homeDir: home }).hosts[0]!.ssh).toMatchObject({ keyFile: join(home, '.ssh', 'id_ed25519'), agent: false });
    expect(load(`hosts:\n${cp}`, { env: { SSH_AUTH_SOCK: '/s' }, homeDir: home }).hosts[0]!.ssh.agent).toBe(true);
  });

  it('reads durations in ms, s and m, or as a number of milliseconds', () => {
    expect(
      load(`ssh: { connectTimeout: 500ms, keepaliveInterval: 2m, keepaliveCountMax: 5, commandIdleTimeout: 45s, connectRetries: 0 }\nhosts:\n${cp}`).ssh,
    ).toEqual({ connectTimeoutMs: 500, keepaliveIntervalMs: 120_000, keepaliveCountMax: 5, commandIdleTimeoutMs: 45_000, connectRetries: 0 });
    expect(load(`ssh: { connectTimeout: 2500, keepaliveInterval: 30s }\nhosts:\n${cp}`).ssh).toMatchObject({
      connectTimeoutMs: 2500,
      keepaliveIntervalMs: 30_000,
    });
  });

  it('gives an inline bastion the ssh defaults unless it says otherwise', () => {
    const inv = load(
      'ssh: { user: ops, keyFile: /k/id }\nhosts:\n' +
        '  - { name: cp1, address: 10.0.0.1, roles: [control-plane], bastion: { address: 10.9.9.9, port: 2222 } }\n' +
        '  - { name: w1, address: 10.0.0.2, bastion: { name: jump, address: 10.9.9.8, user: jumper, agent: true } }\n',
    );
    expect(inv.hosts[0]!.bastion).toEqual({ name: '10.9.9.9', address: '10.9.9.9', port: 2222, user: 'ops', keyFile: '/k/id', agent: false });
    expect(inv.hosts[1]!.bastion).toEqual({ name: 'jump', address: '10.9.9.8', port: 22, user: 'jumper', keyFile: '/k/id', agent: true });
  });

  it('enables become only for a non-root user, unless the host says otherwise', () => {
    const inv = load(
      `hosts:\n${cp}  - { name: w1, address: 10.0.0.2, user: ops }\n  - { name: w2, address: 10.0.0.3, user: ops, become: false }\n  - { name: w3, address: 10.0.0.4, become: true }\n`,
    );
    expect(inv.hosts.map((h) => h.become.enabled)).toEqual([false, true, false, false]);
    expect(inv.hosts.map((h) => h.roles)).toEqual([['control-plane', 'etcd'], ['worker'], ['worker'], ['worker']]);
  });
});

describe('the shipped JSON Schema', () => {
  it('compiles with ajv in strict mode', () => {
    const schema = JSON.parse(readFileSync('src/kubernetes/inventory/inventory.schema.json', 'utf8')) as object;
    const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
    ajv.addKeyword({ keyword: 'allowed', schemaType: 'string' });
    ajv.addKeyword({ keyword: 'defaultText', schemaType: 'string' });
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(() => compileInventorySchema()).not.toThrow();
  });

  it('accepts the example inventory and the fixtures meant to be valid', () => {
    const validate = compileInventorySchema();
    for (const file of ['inventory.example.yaml', 'test/fixtures/inventory/valid-ha.yaml', 'test/fixtures/inventory/even-etcd.yaml']) {
      const ok = validate(parse(readFileSync(file, 'utf8')));
      expect({ file, errors: ok ? [] : validate.errors }).toEqual({ file, errors: [] });
    }
  });

  it('is the schema the example names for editors', () => {
    expect(readFileSync('inventory.example.yaml', 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=./src/kubernetes/inventory/inventory.schema.json',
    );
  });
});
