// The inventory reference page is generated from the JSON Schema: the committed page must be
// what the generator renders now, every key needs a description, and every `default` the
// schema states must be the default the code applies.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLUSTER_DEFAULTS, DEFAULT_KUBERNETES_VERSION, SSH_DEFAULTS } from '../../../src/kubernetes/inventory/defaults.js';
import { parseDuration, resolveInventory } from '../../../src/kubernetes/inventory/resolve-inventory.js';
import { schemaEntries, type SchemaNode } from '../../../src/kubernetes/inventory/schema-entries.js';
import { REFERENCE_COMMAND, REFERENCE_PAGE, schemaReference } from '../../../src/kubernetes/inventory/schema-reference.js';
import { NODE_VAR_DEFAULTS } from '../../../src/kubernetes/cluster/node-vars.js';

const schema = JSON.parse(readFileSync('src/kubernetes/inventory/inventory.schema.json', 'utf8')) as SchemaNode;

describe('docs/users/inventory-reference.md', () => {
  it(`is what the schema renders now (run \`${REFERENCE_COMMAND}\` after editing the schema)`, () => {
    const committed = readFileSync(REFERENCE_PAGE, 'utf8');
    const fresh = schemaReference(schema);
    if (committed !== fresh) {
      expect.fail(`${REFERENCE_PAGE} is out of date with src/kubernetes/inventory/inventory.schema.json: run \`${REFERENCE_COMMAND}\` and commit the page`);
    }
  });

  it('lists every key of the schema with its full path', () => {
    const page = schemaReference(schema);
    const paths = schemaEntries(schema).map((e) => e.path);
    for (const path of [
      'cluster.apiEndpoint.host',
      'cluster.registries.<registry>.mirrors',
      'hosts[].bastion.address',
      'vars.nodeTaints[].effect',
      'groups.<group>.hosts',
      'ssh.become.passwordEnv',
    ]) {
      expect(paths).toContain(path);
    }
    for (const path of paths) expect(page).toContain(`### \`${path}\``);
  });

  it('refuses a key without a description, naming it', () => {
    const bare: SchemaNode = { type: 'object', properties: { hosts: { type: 'array', description: 'the machines' }, stateDir: { type: 'string' } } };
    expect(() => schemaReference(bare)).toThrow('stateDir has no description');
  });

  it('shows type, default, allowed values, limits and the example', () => {
    const page = schemaReference(schema);
    const section = page.slice(page.indexOf('### `cluster.audit.maxAgeDays`'), page.indexOf('### `cluster.audit.maxBackups`'));
    expect(section).toContain('- type: integer\n- default: `30`\n- allowed: a number of days 1-3650\n- schema: at least 1; at most 3650');
    expect(page).toContain('- example: `certSANs: [ api.example.com, 10.10.0.200 ]`');
    expect(page).toContain('### `hosts[].name`');
    expect(page).toMatch(/### `hosts\[\]\.name`\n\n[^\n]+\n\n- type: string\n- default: required\n/);
  });
});

/** Every schema `default`, against the value the code applies when the key is left out. */
describe('the schema defaults are the code defaults', () => {
  const inventory = resolveInventory(
    { hosts: [{ name: 'cp1', address: '10.0.0.1', roles: ['control-plane'] }] },
    { file: '/x/inv.yaml', env: {}, homeDir: '/home/u' },
  );
  const { cluster, ssh } = inventory;
  // cluster.state is optional as a whole: its defaults are read from a store given only what is required.
  const withStore = resolveInventory(
    {
      cluster: {
        state: {
          s3: { endpoint: 'http://10.0.0.9:7070', bucket: 'state' },
          key: { env: 'KEY' },
          scheduledSnapshots: { accessKeyIdEnv: 'SNAP_ID', secretAccessKeyEnv: 'SNAP_SECRET' },
        },
      },
      hosts: [{ name: 'cp1', address: '10.0.0.1', roles: ['control-plane'] }],
    },
    { file: '/x/inv.yaml', env: {}, homeDir: '/home/u' },
  ).cluster.state!;
  // virtualIp is optional as a whole too: its defaults are read from an empty one.
  const withVirtualIp = resolveInventory(
    { cluster: { apiEndpoint: { host: '10.0.0.250', virtualIp: {} } }, hosts: [{ name: 'cp1', address: '10.0.0.1', roles: ['control-plane'] }] },
    { file: '/x/inv.yaml', env: {}, homeDir: '/home/u' },
  ).cluster.apiEndpoint.virtualIp!;
  const applied: Record<string, unknown> = {
    'cluster.state.s3.prefix': withStore.s3.prefix,
    'cluster.state.s3.region': withStore.s3.region,
    'cluster.state.s3.pathStyle': withStore.s3.pathStyle,
    'cluster.state.s3.accessKeyIdEnv': withStore.s3.accessKeyIdEnv,
    'cluster.state.s3.secretAccessKeyEnv': withStore.s3.secretAccessKeyEnv,
    'cluster.state.s3.sessionTokenEnv': withStore.s3.sessionTokenEnv,
    'cluster.state.leaseSeconds': withStore.leaseSeconds,
    'cluster.state.snapshots.keep': withStore.snapshots.keep,
    'cluster.state.scheduledSnapshots.keep': withStore.scheduledSnapshots!.keep,
    'cluster.name': cluster.name,
    'cluster.kubernetesVersion': cluster.kubernetesVersion,
    'cluster.podCIDR': cluster.podCIDR,
    'cluster.serviceCIDR': cluster.serviceCIDR,
    'cluster.clusterDomain': cluster.clusterDomain,
    'cluster.apiEndpoint.port': cluster.apiEndpoint.port,
    'cluster.apiEndpoint.virtualIp.routerId': withVirtualIp.routerId,
    'cluster.containerRuntime': cluster.containerRuntime,
    'cluster.cni': cluster.cni,
    'cluster.audit.maxAgeDays': cluster.audit.maxAgeDays,
    'cluster.audit.maxBackups': cluster.audit.maxBackups,
    'cluster.audit.maxSizeMB': cluster.audit.maxSizeMB,
    'cluster.podSecurity.enforce': cluster.podSecurity.enforce,
    'cluster.podSecurity.warn': cluster.podSecurity.warn,
    'cluster.podSecurity.audit': cluster.podSecurity.audit,
    'cluster.podSecurity.exemptNamespaces': cluster.podSecurity.exemptNamespaces,
    'cluster.featureGates': cluster.featureGates,
    'cluster.apiServer.extraArgs': cluster.extraArgs.apiServer,
    'cluster.apiServer.extraFiles': cluster.extraFiles.apiServer,
    'cluster.apiServer.certSANs': cluster.apiServerCertSANs,
    'cluster.kubeProxy.mode': cluster.kubeProxy.mode,
    'cluster.kubeProxy.config': cluster.kubeProxy.config,
    'cluster.metricsServer.enabled': cluster.metricsServer.enabled,
    'cluster.localPathStorage.enabled': cluster.localPathStorage.enabled,
    'cluster.localPathStorage.path': cluster.localPathStorage.path,
    'cluster.networkPolicy.enabled': cluster.networkPolicy.enabled,
    'cluster.manifests': cluster.manifests,
    'cluster.charts': cluster.charts,
    'cluster.proxy.noProxy': [],
    'cluster.registries': cluster.registries,
    'cluster.dns.stubDomains': cluster.dns.stubDomains,
    'cluster.controllerManager.extraFiles': cluster.extraFiles.controllerManager,
    'cluster.controllerManager.extraArgs': cluster.extraArgs.controllerManager,
    'cluster.etcd.extraArgs': cluster.extraArgs.etcd,
    'cluster.etcd.snapshots.enabled': cluster.etcdSnapshots.enabled,
    'cluster.etcd.snapshots.schedule': cluster.etcdSnapshots.schedule,
    'cluster.etcd.snapshots.keep': cluster.etcdSnapshots.keep,
    'cluster.artifacts.source': cluster.artifacts.kind,
    'cluster.artifacts.mirrors': cluster.artifacts.mirrors,
    'cluster.artifacts.uploadConcurrency': cluster.artifacts.uploadConcurrency,
    'cluster.artifacts.fanOut': cluster.artifacts.fanOut,
    'ssh.user': inventory.hosts[0]!.ssh.user,
    'ssh.port': inventory.hosts[0]!.ssh.port,
    'ssh.connectTimeout': ssh.connectTimeoutMs,
    'ssh.keepaliveInterval': ssh.keepaliveIntervalMs,
    'ssh.keepaliveCountMax': ssh.keepaliveCountMax,
    'ssh.commandIdleTimeout': ssh.commandIdleTimeoutMs,
    'ssh.connectRetries': ssh.connectRetries,
    'ssh.become.method': inventory.hosts[0]!.become.method,
    'hosts[].arch': inventory.hosts[0]!.arch,
    'vars.cgroupDriver': NODE_VAR_DEFAULTS.cgroupDriver,
    'vars.failSwapOn': NODE_VAR_DEFAULTS.failSwapOn,
    'vars.dockerPackages': NODE_VAR_DEFAULTS.dockerPackages,
    'vars.nodeLabels': {},
    'vars.nodeTaints': [],
    'vars.kubeletConfig': {},
  };
  const durations = new Set(['ssh.connectTimeout', 'ssh.keepaliveInterval', 'ssh.commandIdleTimeout']);
  const stated = schemaEntries(schema).filter((e) => e.node.default !== undefined);

  it('every stated default has a value the code applies, listed here', () => {
    expect(stated.map((e) => e.path).filter((p) => !(p in applied))).toEqual([]);
  });

  it.each(stated.map((e) => [e.path, e.node.default] as const))('%s: %j', (path, value) => {
    const expected = durations.has(path) ? parseDuration(value as string, -1) : value;
    expect(applied[path]).toEqual(expected);
  });

  it('the code constants behind them', () => {
    expect(cluster.kubernetesVersion).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(cluster.apiEndpoint.port).toBe(CLUSTER_DEFAULTS.apiPort);
    expect(ssh.connectTimeoutMs).toBe(SSH_DEFAULTS.connectTimeoutMs);
  });
});
