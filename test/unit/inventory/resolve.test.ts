// The effective configuration: defaults, path resolution, var precedence, host selectors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { selectHosts } from '../../../src/orchestrator/inventory/select-hosts.js';
import { renderEffectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-inv-'));
writeFileSync(join(dir, 'id_test'), 'not a real key');

function load(text: string, env: NodeJS.ProcessEnv = {}): Inventory {
  const result = parseInventory(text, join(dir, 'inventory.yaml'), { env, homeDir: join(dir, 'home') });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

const three = `
ssh:
  keyFile: ./id_test
vars: { level: cluster, nested: { a: 1, b: 1 } }
groups:
  worker: { vars: { level: worker } }
  edge: { hosts: [w2], vars: { level: edge, nested: { b: 2 } } }
hosts:
  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }
  - { name: w1, address: 10.0.0.2, roles: [worker], user: deploy }
  - { name: w2, address: 10.0.0.3, roles: [worker], vars: { level: host } }
`;

describe('inventory resolution', () => {
  it('fills every default', () => {
    const inv = load(three);
    expect(inv.cluster).toEqual({
      name: 'kcluster',
      kubernetesVersion: 'v1.37.2',
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      clusterDomain: 'cluster.local',
      apiEndpoint: { port: 6443 },
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
      artifacts: { kind: 'release', mirrors: {}, cacheDir: join(dir, 'home', '.kcluster', 'cache', 'artifacts'), uploadConcurrency: 8, fanOut: true },
    });
    expect(inv.ssh).toEqual({ connectTimeoutMs: 10_000, keepaliveIntervalMs: 5_000, keepaliveCountMax: 3, commandIdleTimeoutMs: 1_800_000, connectRetries: 3 });
    expect(inv.stateDir).toBe(join(dir, 'home', '.kcluster', 'kcluster'));
  });

  it('resolves key paths against the inventory folder and inherits ssh settings', () => {
    const inv = load(three);
    expect(inv.hosts[0]!.ssh).toEqual({ address: '10.0.0.1', port: 22, user: 'root', keyFile: join(dir, 'id_test'), agent: false });
    expect(inv.hosts[1]!.ssh.user).toBe('deploy');
    expect(inv.hosts[1]!.become.enabled).toBe(true);
    expect(inv.hosts[0]!.become.enabled).toBe(false);
  });

  it('merges vars: cluster < built-in groups < custom groups < host, objects deeply', () => {
    const inv = load(three);
    expect(inv.hosts.map((h) => h.vars['level'])).toEqual(['cluster', 'worker', 'host']);
    expect(inv.hosts[2]!.vars['nested']).toEqual({ a: 1, b: 2 });
  });

  it('makes the control planes the etcd members unless some host has the etcd role', () => {
    expect(load(three).groups['etcd']).toEqual(['cp1']);
    const explicit = load(three.replace('roles: [worker], user', 'roles: [worker, etcd], user'));
    expect(explicit.groups['etcd']).toEqual(['w1']);
  });

  it('uses the ssh-agent when nothing else is named and SSH_AUTH_SOCK is set', () => {
    const inv = load('hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n', { SSH_AUTH_SOCK: '/tmp/a' });
    expect(inv.hosts[0]!.ssh.agent).toBe(true);
    expect(inv.hosts[0]!.ssh.keyFile).toBeUndefined();
  });

  it('resolves a bastion named by host', () => {
    const inv = load(
      `${three}  - { name: jump, address: 10.0.0.9, roles: [worker], port: 2200 }\n`.replace(
        'vars: { level: host } }',
        'vars: { level: host }, bastion: jump }',
      ),
    );
    expect(inv.hosts[2]!.bastion).toMatchObject({ name: 'jump', address: '10.0.0.9', port: 2200 });
  });

  it('prints the effective configuration without secrets', () => {
    const inv = load(three.replace('roles: [worker], user: deploy', 'roles: [worker], user: deploy, become: { passwordEnv: SUDO_PW }'), {
      SUDO_PW: 'topsecret',
    });
    const yaml = renderEffectiveConfig(inv, 'yaml');
    expect(yaml).toContain('passwordEnv: SUDO_PW');
    expect(yaml).not.toContain('topsecret');
    expect(JSON.parse(renderEffectiveConfig(inv, 'json')).hosts).toHaveLength(3);
  });
});

describe('host selectors', () => {
  const inv = load(three);
  it.each([
    ['all', ['cp1', 'w1', 'w2']],
    ['worker', ['w1', 'w2']],
    ['w*', ['w1', 'w2']],
    ['cp1,w2', ['cp1', 'w2']],
    ['all,!edge', ['cp1', 'w1']],
    ['worker,&edge', ['w2']],
    ['!cp1', ['w1', 'w2']],
  ])('%s', (selector, expected) => {
    expect(selectHosts(inv, selector)).toEqual({ hosts: expected, unknown: [] });
  });
  it('reports unknown terms', () => {
    expect(selectHosts(inv, 'cp1,nope').unknown).toEqual(['nope']);
  });
});
