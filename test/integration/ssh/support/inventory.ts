// Resolved inventories and host key policies pointing at the test sshd, each with its own
// state folder so trust-on-first-use starts afresh in every test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostSettings, Inventory, SshEndpoint } from '../../../../src/orchestrator/inventory/model.js';
import { HostKeyPolicy } from '../../../../src/orchestrator/ssh/host-key-policy.js';
import type { TestSshd } from './sshd.js';

export interface TestSetup {
  readonly inventory: Inventory;
  readonly policy: HostKeyPolicy;
  /** The "user's" known_hosts checked before the pins (empty unless a test writes it). */
  readonly userKnownHosts: string;
}

export function endpoint(sshd: TestSshd, overrides: Partial<SshEndpoint> = {}): SshEndpoint {
  return { address: '127.0.0.1', port: sshd.port, user: sshd.user, keyFile: sshd.clientKey, agent: false, ...overrides };
}

export function host(name: string, ssh: SshEndpoint, extra: Partial<HostSettings> = {}): HostSettings {
  return { name, ssh, become: { enabled: false, method: 'sudo' }, roles: ['worker'], vars: {}, source: `test:${name}`, ...extra };
}

export function setup(hosts: readonly HostSettings[], ssh: Partial<Inventory['ssh']> = {}): TestSetup {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'kcluster-ssh-test-')), 'state');
  const userKnownHosts = join(stateDir, '..', 'user_known_hosts');
  const inventory: Inventory = {
    file: '/test/inventory.yaml',
    cluster: {
      name: 'sshtest',
      kubernetesVersion: 'v1.35.8',
      podCIDR: '10.244.0.0/16',
      serviceCIDR: '10.96.0.0/12',
      clusterDomain: 'cluster.local',
      apiEndpoint: { port: 6443 },
      containerRuntime: 'containerd',
      cni: 'none',
      audit: { maxAgeDays: 30, maxBackups: 10, maxSizeMB: 100 },
      podSecurity: { enforce: 'baseline', warn: 'restricted', audit: 'restricted', exemptNamespaces: [] },
      etcdSnapshots: { enabled: true, schedule: '*-*-* 00/12:00:00', keep: 5 },
      featureGates: {},
      extraArgs: { apiServer: {}, controllerManager: {}, scheduler: {}, etcd: {} },
      apiServerCertSANs: [],
      extraFiles: { apiServer: [], controllerManager: [], scheduler: [] },
      manifests: [],
      charts: [],
      registries: {},
      kubeProxy: { mode: 'iptables', config: {} },
      metricsServer: { enabled: true },
      localPathStorage: { enabled: false, path: '/opt/local-path-provisioner' },
      networkPolicy: { enabled: true },
      dns: { upstreams: [], stubDomains: {} },
      artifacts: { kind: 'release', mirrors: {}, cacheDir: '/nonexistent/artifacts', uploadConcurrency: 8, fanOut: true },
    },
    ssh: { connectTimeoutMs: 5_000, keepaliveIntervalMs: 15_000, keepaliveCountMax: 3, commandIdleTimeoutMs: 1_800_000, connectRetries: 0, ...ssh },
    stateDir,
    hosts,
    groups: { all: hosts.map((h) => h.name) },
  };
  const policy = new HostKeyPolicy({ knownHostsFiles: [userKnownHosts], pinFile: join(stateDir, 'known_hosts'), strict: false, inventoryFile: inventory.file });
  return { inventory, policy, userKnownHosts };
}
