// The API's virtual IP (cluster.apiEndpoint.virtualIp, roles/api-vip): the cluster playbook
// planned in check mode over the fresh-host recordings (nothing runs) with two control planes
// holding 10.231.7.250; the preflight's subnet check; the interface fact's parser; and the
// setting refused at its file:line:col where it cannot work.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';
import { VIRTUAL_IP, virtualIpVariant } from '../../support/recorded-facts/plan-variants.js';
import { virtualIpProblem } from '../../../roles/preflight/virtual-ip.js';
import { parseAddressInterface } from '../../../src/orchestrator/facts/address-interface.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { topologyOf } from '../../../src/kubernetes/cluster/topology.js';
import { componentExtraArgs } from '../../../src/kubernetes/cluster/component-args.js';

const ROLE = 'api-vip';
const CONFIG = 'file /etc/kcluster/keepalived.conf';
const UNIT = 'file /etc/systemd/system/kcluster-keepalived.service';

describe('the API virtual IP planned on fresh hosts (recorded facts, fake connection)', () => {
  let two: Scenario;
  let one: Scenario;
  beforeAll(async () => {
    [two, one] = await Promise.all([
      planOverRecording('empty-debian', virtualIpVariant),
      planOverRecording('empty-debian', {
        edit(doc) {
          doc['cluster'] = { ...(doc['cluster'] as object), apiEndpoint: { host: VIRTUAL_IP, virtualIp: {} } };
        },
      }),
    ]);
  }, 60_000);

  it('installs keepalived and its health check on each control plane, nothing on the worker', () => {
    expect(two.failures).toEqual([]);
    for (const host of ['kcrec1', 'kcrec2'])
      expect(two.tasks(host, ROLE)).toEqual([
        'binary /usr/local/sbin/keepalived',
        'binary /usr/local/bin/kcluster-apiproxy',
        CONFIG,
        UNIT,
        'service kcluster-keepalived.service enabled, started',
      ]);
    expect(two.tasks('kcrec3', ROLE)).toEqual([]);
    // the node-local proxy is for clusters without an API address: not here
    expect(two.planned.some((p) => p.task.includes('kcluster-apiproxy.service'))).toBe(false);
  });

  it('each control plane advertises to the other only, on the interface holding its address, and checks its own API server', () => {
    const config = two.diff('kcrec1', CONFIG);
    expect(config).toContain('+    interface host0\n');
    expect(config).toContain('+    virtual_router_id 77\n');
    expect(config).toContain('+    unicast_src_ip 10.231.7.11\n+    unicast_peer {\n+        10.231.7.12\n+    }\n');
    expect(config).toContain(`+        ${VIRTUAL_IP}/32 dev host0\n`);
    expect(config).toContain('+    script "/usr/local/bin/kcluster-apiproxy -check https://127.0.0.1:6443/readyz"\n');
    expect(config).toContain('+    nopreempt\n+    priority 200\n');
    expect(two.diff('kcrec2', CONFIG)).toContain('+    priority 199\n');
    expect(two.diff('kcrec2', CONFIG)).toContain('+    unicast_src_ip 10.231.7.12\n+    unicast_peer {\n+        10.231.7.11\n+    }\n');
  });

  it('an API server that stops keeps serving while the address moves away from it', () => {
    expect(two.diff('kcrec1', 'file /etc/kubernetes/manifests/kube-apiserver.yaml')).toContain('+        - "--shutdown-delay-duration=5s"\n');
  });

  it('with one control plane there is no peer: VRRP multicast, router id 51', () => {
    expect(one.failures).toEqual([]);
    const config = one.diff('kcrec1', CONFIG);
    expect(config).not.toContain('unicast_peer');
    expect(config).toContain('+    virtual_router_id 51\n');
  });

  it('runs before the control planes, one control plane at a time', () => {
    const order = [...new Set(two.planned.map((p) => p.role))];
    expect(order.indexOf(ROLE)).toBeLessThan(order.indexOf('control-plane'));
  });
});

describe("the API server's shutdown delay with a virtual IP", () => {
  const cluster = (own: Record<string, string>) => ({
    extraArgs: { apiServer: own, controllerManager: {}, scheduler: {}, etcd: {} },
    featureGates: {},
    apiServerOidc: undefined,
  });
  it('is 5 s unless the operator sets one, and only for the API server with a virtual IP', () => {
    expect(componentExtraArgs(cluster({}) as never, 'kube-apiserver', { virtualIp: true })).toEqual(['--shutdown-delay-duration=5s']);
    expect(componentExtraArgs(cluster({ 'shutdown-delay-duration': '20s' }) as never, 'kube-apiserver', { virtualIp: true })).toEqual([
      '--shutdown-delay-duration=20s',
    ]);
    expect(componentExtraArgs(cluster({}) as never, 'kube-apiserver')).toEqual([]);
    expect(componentExtraArgs(cluster({}) as never, 'kube-scheduler', { virtualIp: true })).toEqual([]);
  });
});

describe('preflight virtual-ip', () => {
  it('passes when the virtual IP is in the subnet of the interface holding the host address', () => {
    expect(virtualIpProblem('10.0.0.250', '10.0.0.11', { dev: 'eth0', prefixLength: 24 })).toBeUndefined();
  });
  it('fails outside that subnet, naming the interface and what to do', () => {
    expect(virtualIpProblem('10.0.1.250', '10.0.0.11', { dev: 'eth0', prefixLength: 24 })).toMatch(
      /the virtual IP 10\.0\.1\.250 is outside this host's subnet 10\.0\.0\.11\/24 on eth0: .*choose a free address in it for cluster\.apiEndpoint\.host, or use a load balancer/,
    );
  });
  it('fails when no interface has the inventory address', () => {
    expect(virtualIpProblem('10.0.0.250', '10.0.0.11', {})).toMatch(/no interface of this host has its inventory address 10\.0\.0\.11/);
  });
});

describe('the address-interface fact', () => {
  const out = [
    '2: host0    inet 10.231.7.11/24 brd 10.231.7.255 scope global host0\\       valid_lft forever preferred_lft forever',
    '2: host0    inet 10.231.7.250/32 scope global host0\\       valid_lft forever preferred_lft forever',
    '',
  ].join('\n');
  it('finds the interface and prefix of the exact address, not of another on the same interface', () => {
    expect(parseAddressInterface(out, '10.231.7.11')).toEqual({ dev: 'host0', prefixLength: 24 });
    expect(parseAddressInterface(out, '10.231.7.1')).toEqual({});
  });
  it('drops the peer part of a veth name', () => {
    expect(parseAddressInterface('3: eth0@if9    inet 192.0.2.5/28 scope global eth0\n', '192.0.2.5')).toEqual({ dev: 'eth0', prefixLength: 28 });
  });
});

describe('cluster.apiEndpoint.virtualIp in the inventory', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'kc-vip-')), 'inventory.yaml');
  const text = (endpoint: string, artifacts = '  artifacts: { source: bundle, bundle: /srv/bundle }'): string =>
    ['cluster:', endpoint, artifacts, 'ssh: { agent: true }', 'hosts:', '  - { name: cp1, address: 10.0.0.11, roles: [control-plane] }', ''].join('\n');
  const errorsOf = (source: string): string => {
    writeFileSync(file, source);
    const result = parseInventory(source, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: '/root' });
    return result.ok ? '' : result.errors.map(formatDiagnostic).join('\n');
  };
  const load = (source: string) => {
    writeFileSync(file, source);
    const result = parseInventory(source, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: '/root' });
    if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
    return result.inventory;
  };

  it('resolves with router id 51 unless given', () => {
    expect(load(text('  apiEndpoint: { host: 10.0.0.250, virtualIp: {} }')).cluster.apiEndpoint).toEqual({
      host: '10.0.0.250',
      port: 6443,
      virtualIp: { routerId: 51 },
    });
    expect(load(text('  apiEndpoint: { host: 10.0.0.250, virtualIp: { routerId: 9 } }')).cluster.apiEndpoint.virtualIp).toEqual({ routerId: 9 });
  });

  it('kubelets, kube-proxy and the admin reach the API at the virtual IP, with no node-local proxy', () => {
    const inventory = load(
      text('  apiEndpoint: { host: 10.0.0.250, virtualIp: {} }').replace(
        '  - { name: cp1, address: 10.0.0.11, roles: [control-plane] }',
        ['11', '12', '13'].map((n, i) => `  - { name: cp${i + 1}, address: 10.0.0.${n}, roles: [control-plane] }`).join('\n'),
      ),
    );
    const topology = topologyOf(inventory);
    expect([topology.apiServerUrl, topology.adminServerUrl, topology.localProxy]).toEqual(['https://10.0.0.250:6443', 'https://10.0.0.250:6443', false]);
  });

  it('is refused at its line without a host, with a name, with a host address, with source: release, with a router id out of range', () => {
    expect(errorsOf(text('  apiEndpoint: { virtualIp: {} }'))).toMatch(
      new RegExp(`${file}:2:\\d+: cluster.apiEndpoint.virtualIp: needs cluster.apiEndpoint.host`),
    );
    expect(errorsOf(text('  apiEndpoint: { host: api.example.test, virtualIp: {} }'))).toMatch(
      /cluster\.apiEndpoint\.host: is "api\.example\.test", and a virtual IP must be an IPv4 address/,
    );
    expect(errorsOf(text('  apiEndpoint: { host: 10.0.0.11, virtualIp: {} }'))).toMatch(
      /10\.0\.0\.11 is the address of hosts\[0\] \(cp1\): a virtual IP must be a free address/,
    );
    expect(errorsOf(text('  apiEndpoint: { host: 10.0.0.250, virtualIp: {} }', '  name: c'))).toMatch(
      /cluster\.apiEndpoint\.virtualIp: needs cluster\.artifacts\.source: bundle .*and source is release: use a bundle, or put a load balancer at apiEndpoint\.host/,
    );
    expect(errorsOf(text('  apiEndpoint: { host: 10.0.0.250, virtualIp: { routerId: 256 } }'))).toMatch(/cluster\.apiEndpoint\.virtualIp\.routerId/);
    expect(errorsOf(text('  apiEndpoint: { host: 10.0.0.250, virtualIp: {} }').replace('address: 10.0.0.11', 'address: cp1.example.test'))).toMatch(
      /hosts\[0\]\.address: is "cp1\.example\.test", and with cluster\.apiEndpoint\.virtualIp every control plane needs an IPv4 address here/,
    );
  });
});
