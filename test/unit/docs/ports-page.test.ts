// docs/users/ports.md stays true to the code: every port it lists is read here from where the
// code fixes it (constants, the manifest and unit templates, the relay's command), and the page's
// tables must show it in the right section, with the address it listens on when that is
// loopback. Where a template sets nothing and the component's own default applies, the test
// checks that the template still sets nothing before it asks for that default on the page.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_PROXY_PORT } from '../../../src/kubernetes/cluster/topology.js';
import { CLUSTER_DEFAULTS, SSH_DEFAULTS } from '../../../src/kubernetes/inventory/defaults.js';
import { LOCAL_ETCD } from '../../../src/kubernetes/etcd/etcdctl.js';
import { runtimeEndpointOf } from '../../../src/kubernetes/cluster/runtime-endpoint.js';
import { relayServeCommand } from '../../../src/kubernetes/artifacts/fan-out/relay-commands.js';
import { FAN_OUT_CONTROLLER_COPIES } from '../../../src/kubernetes/artifacts/fan-out/fan-out-limits.js';
import { CONTROL_PLANE_PORTS, NETWORK_POLICY_METRICS_PORT, NODE_PORTS } from '../../../roles/preflight/checks.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const PAGE_PATH = 'docs/users/ports.md';
const PAGE = read(PAGE_PATH);

/** The page's sections (## headings), as the tests name them. */
const SECTION = {
  controller: 'From the controller',
  controlPlanes: 'Between control planes',
  toControlPlanes: 'From every node to the control planes',
  nodes: 'Between nodes',
  podNetwork: 'Inside the pod network',
  outside: 'Out of the cluster',
  local: 'Only on the node itself',
} as const;
type Section = (typeof SECTION)[keyof typeof SECTION];

const COLUMNS = ['port', 'protocol', 'from', 'to', 'when', 'defined in'] as const;
type Row = Readonly<Record<(typeof COLUMNS)[number], string>> & { readonly section: string; readonly text: string };

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

/** Every table row of the page, by column, with the ## section it sits in. */
function tableRows(markdown: string): Row[] {
  const rows: Row[] = [];
  let section = '';
  let header: string[] | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^##\s+(.*)$/.exec(line);
    if (heading) section = heading[1]!.trim();
    if (!line.startsWith('|')) {
      header = undefined;
      continue;
    }
    if (header === undefined) {
      header = cells(line);
      if (header.join('|') !== COLUMNS.join('|'))
        throw new Error(`${PAGE_PATH}: a table in "${section}" has the columns ${header.join(', ')}, not ${COLUMNS.join(', ')}`);
      continue;
    }
    if (/^\|[-|\s:]+\|$/.test(line.trim())) continue;
    const values = cells(line);
    const row = Object.fromEntries(COLUMNS.map((c, i) => [c, values[i] ?? ''])) as Record<(typeof COLUMNS)[number], string>;
    rows.push({ ...row, section, text: line });
  }
  return rows;
}

const ROWS = tableRows(PAGE);

/** The port as a whole number in a text (10250 is not 1025 nor 102500). */
const hasPort = (text: string, port: number | string): boolean => new RegExp(`(^|[^0-9])${String(port)}([^0-9]|$)`).test(text);

/** The rows of a section whose port column names the port. */
function rowsWith(port: number | string, section?: Section): Row[] {
  return ROWS.filter((r) => hasPort(r.port, port) && (section === undefined || r.section === section));
}

function expectRow(port: number | string, section: Section, ...words: string[]): void {
  const rows = rowsWith(port, section);
  expect(rows.length, `${PAGE_PATH}: no row for port ${port} in "${section}"`).toBeGreaterThan(0);
  for (const word of words) {
    expect(
      rows.some((r) => r.text.includes(word)),
      `${PAGE_PATH}: the row(s) for port ${port} in "${section}" do not say "${word}"`,
    ).toBe(true);
  }
}

/** A listener: on loopback the page shows it in "Only on the node itself" as 127.0.0.1:PORT; otherwise in a section between hosts. */
function expectListener(address: string, port: number, crossSection: Section): void {
  if (address === '127.0.0.1') expectRow(port, SECTION.local, `127.0.0.1:${port}`);
  else expectRow(port, crossSection);
}

/** The value of --flag=VALUE in a template (every occurrence). */
function flagValues(template: string, flag: string): string[] {
  return [...template.matchAll(new RegExp(`--${flag}=(\\S+)`, 'g'))].map((m) => m[1]!);
}

function oneFlag(template: string, flag: string, file: string): string {
  const values = flagValues(template, flag);
  expect(values, `${file}: --${flag}`).toHaveLength(1);
  return values[0]!;
}

/** host and port of a URL or host:port whose host may be a template variable ({{nodeIp}}). */
function hostPort(text: string): { host: string; port: number } {
  const match = /^(?:[a-z]+:\/\/)?(.+):(\d+)$/.exec(text);
  if (!match) throw new Error(`not host:port: ${text}`);
  return { host: match[1]!, port: Number(match[2]) };
}

const ETCD = 'roles/control-plane/templates/etcd.yaml.hbs';
const APISERVER = 'roles/control-plane/templates/kube-apiserver.yaml.hbs';
const CONTROLLER_MANAGER = 'roles/control-plane/templates/kube-controller-manager.yaml.hbs';
const SCHEDULER = 'roles/control-plane/templates/kube-scheduler.yaml.hbs';
const KUBE_PROXY = 'roles/addons/templates/kube-proxy.yaml.hbs';
const FLANNEL = 'roles/addons/templates/flannel.yaml.hbs';
const NETWORK_POLICIES = 'roles/addons/templates/kube-network-policies.yaml.hbs';
const METRICS_SERVER = 'roles/addons/templates/metrics-server.yaml.hbs';
const COREDNS = 'roles/addons/templates/coredns.yaml.hbs';
const KUBELET = 'roles/kubelet/templates/config.yaml.hbs';
const API_PROXY = 'roles/api-proxy/templates/kcluster-apiproxy.service.hbs';
const CONTAINERD = 'roles/containerd/templates/config.toml.hbs';
const CRI_DOCKERD = 'roles/docker/templates/cri-docker.service.hbs';

describe('docs/users/ports.md', () => {
  it('has its tables, each row with a port and the files that define it, and those files exist', () => {
    expect(ROWS.length).toBeGreaterThan(20);
    for (const name of Object.values(SECTION)) expect(PAGE, `section "${name}"`).toMatch(new RegExp(`^## ${name}$`, 'm'));
    for (const row of ROWS) {
      expect(row.port, row.text).not.toBe('');
      const paths = [...row['defined in'].matchAll(/`([\w.-]+(?:\/[\w.-]+)+)`/g)].map((m) => m[1]!);
      expect(paths.length, `${row.text}: no file in "defined in"`).toBeGreaterThan(0);
      for (const path of paths) expect(existsSync(join(ROOT, path)), `${row.text}: ${path} does not exist`).toBe(true);
    }
  });

  it('gives the SSH port and the API port as the inventory defaults them', () => {
    expectRow(SSH_DEFAULTS.port, SECTION.controller, 'SSH', '`hosts[].port`', '`ssh.port`');
    expectRow(CLUSTER_DEFAULTS.apiPort, SECTION.controller, '`cluster.apiEndpoint.port`', '`cluster.apiEndpoint.host`');
    expectRow(CLUSTER_DEFAULTS.apiPort, SECTION.toControlPlanes, '`cluster.apiEndpoint.port`');
  });

  it('says the API server listens on every address at the API port, as its manifest sets it', () => {
    const template = read(APISERVER);
    expect(oneFlag(template, 'secure-port', APISERVER)).toBe('{{apiPort}}');
    expect(flagValues(template, 'bind-address'), `${APISERVER} sets --bind-address: the page says all addresses`).toEqual([]);
    expectRow(CLUSTER_DEFAULTS.apiPort, SECTION.toControlPlanes, 'all its addresses');
  });

  it('gives the node-local API proxy on the address and port it listens on', () => {
    const host = /-listen (\S+?):\{\{port\}\}/.exec(read(API_PROXY))?.[1];
    expect(host, `${API_PROXY}: -listen HOST:{{port}}`).toBe('127.0.0.1');
    // The role renders the unit with the constant as its port.
    expect(read('roles/api-proxy/index.ts')).toMatch(/\bport: LOCAL_PROXY_PORT\b/);
    expectRow(LOCAL_PROXY_PORT, SECTION.toControlPlanes, `127.0.0.1:${LOCAL_PROXY_PORT}`, 'no `cluster.apiEndpoint.host`');
    expectRow(LOCAL_PROXY_PORT, SECTION.local, `127.0.0.1:${LOCAL_PROXY_PORT}`);
  });

  it("gives VRRP between the control planes as keepalived's settings send it: unicast to the others, multicast alone", () => {
    const template = read('roles/api-vip/templates/keepalived.conf.hbs');
    expect(template).toMatch(/unicast_peer \{\n\{\{#each peers\}\}/);
    expect(template).toContain('224.0.0.18');
    const vrrp = ROWS.filter((r) => r.section === SECTION.controlPlanes && r.port.includes('IP protocol 112'));
    expect(vrrp, `${PAGE_PATH}: no VRRP row in "${SECTION.controlPlanes}"`).toHaveLength(1);
    for (const word of ['VRRP', 'unicast', '224.0.0.18', '`cluster.apiEndpoint.virtualIp`']) expect(vrrp[0]!.text).toContain(word);
  });

  it("gives etcd's client, peer and metrics ports where its manifest makes it listen", () => {
    const template = read(ETCD);
    const client = oneFlag(template, 'listen-client-urls', ETCD).split(',').map(hostPort);
    const peer = oneFlag(template, 'listen-peer-urls', ETCD).split(',').map(hostPort);
    const metrics = oneFlag(template, 'listen-metrics-urls', ETCD).split(',').map(hostPort);
    for (const { host, port } of [...client, ...peer, ...metrics]) expectListener(host, port, SECTION.controlPlanes);
    // Each API server talks to its own member only: the page says so.
    expect(oneFlag(read(APISERVER), 'etcd-servers', APISERVER)).toBe('{{etcdServers}}');
    expect(hostPort(LOCAL_ETCD).host).toBe('127.0.0.1');
    expect(PAGE).toContain('`LOCAL_ETCD`');
  });

  it('gives the controller-manager and the scheduler on the address they bind and the port their probe asks', () => {
    for (const file of [CONTROLLER_MANAGER, SCHEDULER]) {
      const template = read(file);
      const bind = oneFlag(template, 'bind-address', file);
      const port = Number(/livenessProbe:[\s\S]*?port: (\d+)/.exec(template)?.[1]);
      expect(port, `${file}: the liveness probe's port`).toBeGreaterThan(0);
      expectListener(bind, port, SECTION.controlPlanes);
    }
  });

  it("gives the kubelet's ports: the template sets none, so the kubelet's own defaults apply", () => {
    const template = read(KUBELET);
    for (const field of ['port', 'address', 'healthzPort', 'healthzBindAddress', 'readOnlyPort']) {
      expect(template, `${KUBELET} sets ${field}: read it here instead of the kubelet's default`).not.toMatch(new RegExp(`^${field}:`, 'm'));
    }
    // The kubelet's defaults: port 10250 on every address, healthz on 127.0.0.1:10248, read-only port 0.
    expect(NODE_PORTS).toContain(10250);
    expectRow(10250, SECTION.nodes, 'all addresses', '`cluster.metricsServer.enabled`');
    expectListener('127.0.0.1', 10248, SECTION.nodes);
    expect(PAGE).toMatch(/read-only port \(10255\) stays off/);
  });

  it("gives kube-proxy's metrics and healthz addresses from its ConfigMap, and the NodePort range", () => {
    const template = read(KUBE_PROXY);
    const metrics = /^\s+metricsBindAddress: (\S+)$/m.exec(template)?.[1];
    expect(metrics, `${KUBE_PROXY}: metricsBindAddress`).toBeDefined();
    const { host, port } = hostPort(metrics!);
    expectListener(host, port, SECTION.nodes);
    const healthz = /^\s+healthzBindAddress: (\S+)$/m.exec(template)?.[1];
    // kube-proxy's default when its configuration sets none: 0.0.0.0:10256.
    const health = hostPort(healthz ?? '0.0.0.0:10256');
    expectListener(health.host, health.port, SECTION.nodes);
    if (health.host === '0.0.0.0') expectRow(health.port, SECTION.nodes, 'all addresses');
    // The API server's default NodePort range, as its manifest sets no other.
    const range = flagValues(read(APISERVER), 'service-node-port-range')[0] ?? '30000-32767';
    expectRow(range, SECTION.nodes, 'NodePort', '`cluster.apiServer.extraArgs`');
  });

  it("gives flannel's VXLAN port: the manifest's backend, or flannel's default when it sets none", () => {
    const template = read(FLANNEL);
    const backend = /"Backend":\s*(\{[^}]*\})/.exec(template)?.[1];
    expect(backend, `${FLANNEL}: net-conf.json's Backend`).toBeDefined();
    const parsed = JSON.parse(backend!) as { Type: string; Port?: number };
    expect(parsed.Type).toBe('vxlan');
    // flannel's vxlan backend uses the kernel's port for it, 8472, unless Port is set.
    expectRow(parsed.Port ?? 8472, SECTION.nodes, 'UDP', 'VXLAN', '`cluster.cni: flannel`');
    expect(PAGE, 'the page names the flannel manifest').toContain(FLANNEL);
  });

  it("gives kube-network-policies' metrics address and its netfilter queue", () => {
    const template = read(NETWORK_POLICIES);
    const { host, port } = hostPort(oneFlag(template, 'metrics-bind-address', NETWORK_POLICIES));
    expectListener(host, port, SECTION.nodes);
    const queue = oneFlag(template, 'nfqueue-id', NETWORK_POLICIES);
    expect(ROWS.some((r) => r.section === SECTION.local && r.protocol === `netfilter queue ${queue}`)).toBe(true);
  });

  it("gives metrics-server's and CoreDNS's ports from their manifests", () => {
    const metrics = read(METRICS_SERVER);
    const securePort = oneFlag(metrics, 'secure-port', METRICS_SERVER);
    const servicePort = /^\s+- \{ name: https, port: (\d+),/m.exec(metrics)?.[1];
    expect(servicePort, `${METRICS_SERVER}: the Service's port`).toBeDefined();
    expectRow(securePort, SECTION.podNetwork, `\`${servicePort}\` (Service)`, 'metrics-server');

    const coredns = read(COREDNS);
    const dns = /name: dns, port: (\d+), targetPort: (\d+), protocol: UDP/.exec(coredns);
    expect(dns, `${COREDNS}: the kube-dns Service's dns port`).not.toBeNull();
    expectRow(dns![2]!, SECTION.podNetwork, `\`${dns![1]}\` (Service)`, 'CoreDNS');
    const metricsPort = /name: metrics, containerPort: (\d+)/.exec(coredns)?.[1];
    expectRow(metricsPort!, SECTION.podNetwork, 'CoreDNS');
    for (const probe of ['/health', '/ready']) {
      const port = new RegExp(`path: ${probe}, port: (\\d+)`).exec(coredns)?.[1];
      expect(port, `${COREDNS}: the ${probe} probe`).toBeDefined();
      expectRow(port!, SECTION.podNetwork, 'CoreDNS');
    }
  });

  it("gives the artifact relay's port as the relay command asks for it, and when the fan-out runs", () => {
    const command = relayServeCommand({ path: '/x', sha256: 'a'.repeat(64), size: 1 }, '192.0.2.7', false).text;
    const listen = /-listen '?([^'\s]+)'?/.exec(command)?.[1];
    expect(listen).toBe('192.0.2.7:0'); // the holder's address, an ephemeral port
    const row = ROWS.find((r) => r.section === SECTION.nodes && r.protocol.includes('kcluster-relay'));
    expect(row, `${PAGE_PATH}: no kcluster-relay row in "${SECTION.nodes}"`).toBeDefined();
    expect(row!.port).toContain('ephemeral');
    expect(row!.port).toContain('ip_local_port_range');
    expect(row!.when).toContain(`more than ${FAN_OUT_CONTROLLER_COPIES} hosts`);
    expect(row!.when).toContain('`cluster.artifacts.source: bundle`');
    expect(row!.when).toContain('`cluster.artifacts.fanOut: true`');
  });

  it("names the runtimes' Unix sockets as their configuration sets them", () => {
    const socket = /^\s*address = "([^"]+)"/m.exec(read(CONTAINERD))?.[1];
    expect(socket, `${CONTAINERD}: grpc address`).toBeDefined();
    const docker = read(CRI_DOCKERD);
    const criDockerd = oneFlag(docker, 'container-runtime-endpoint', CRI_DOCKERD).replace(/^unix:\/\//, '');
    const dockerd = oneFlag(docker, 'docker-endpoint', CRI_DOCKERD).replace(/^unix:\/\//, '');
    const local = ROWS.filter((r) => r.section === SECTION.local && r.protocol === 'Unix socket');
    for (const path of [socket!, criDockerd, dockerd])
      expect(
        local.some((r) => r.to.includes(`\`${path}\``)),
        path,
      ).toBe(true);
    // The kubelet's endpoints are those sockets.
    const endpoint = (runtime: 'containerd' | 'docker'): string =>
      runtimeEndpointOf({ cluster: { containerRuntime: runtime } } as unknown as Inventory).endpoint.replace(/^unix:\/\//, '');
    expect(endpoint('containerd')).toBe(socket);
    expect(endpoint('docker')).toBe(criDockerd);
  });

  it('lists every port the preflight checks, and says which it checks', () => {
    for (const port of [...CONTROL_PLANE_PORTS, ...NODE_PORTS, NETWORK_POLICY_METRICS_PORT, LOCAL_PROXY_PORT])
      expect(rowsWith(port).length, `port ${port}`).toBeGreaterThan(0);
    const said =
      /preflight checks that the TCP ports of the control plane \(API port, ([\d, ]+)\) and of every node \(([\d, ]+); (\d+) with the node-local proxy; (\d+) with the NetworkPolicy agent\)/.exec(
        PAGE.replace(/\s+/g, ' '),
      );
    expect(said, `${PAGE_PATH}: the preflight sentence`).not.toBeNull();
    const list = (text: string): number[] => text.split(',').map((p) => Number(p.trim()));
    expect(list(said![1]!)).toEqual([...CONTROL_PLANE_PORTS]);
    expect(list(said![2]!)).toEqual([...NODE_PORTS]);
    expect(Number(said![3])).toBe(LOCAL_PROXY_PORT);
    expect(Number(said![4])).toBe(NETWORK_POLICY_METRICS_PORT);
  });
});
