// Preflight checks as pure functions: each failure says how to fix it.
import { describe, expect, it } from 'vitest';
import { duplicateIdentities, portsWanted, PREFLIGHT_CHECKS, type CheckInput } from '../../../roles/preflight/checks.js';
import { parsePreflightFacts } from '../../../src/kubernetes/facts/preflight-facts.js';
import { parseRoute } from '../../../src/orchestrator/facts/route-to.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const parsed = parseInventory(
  'ssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2 }\n',
  '/x/i.yaml',
  { env: {}, homeDir: '/x' },
);
if (!parsed.ok) throw new Error('bad inventory');
const inventory = parsed.inventory;
const base: CheckInput = {
  host: inventory.hosts[0]!,
  inventory,
  facts: {
    os: { id: 'debian', idLike: [], version: '12', prettyName: 'Debian 12' },
    kernel: '6.1',
    arch: 'x86_64',
    cpus: 2,
    memoryBytes: 4 * 2 ** 30,
    swapBytes: 0,
    swapOn: false,
    cgroup: 'v2',
    machineId: 'a'.repeat(32),
    hostname: 'cp1',
    addresses: [],
    init: 'systemd',
    runtimes: {},
    listeningTcpPorts: [22],
  },
  preflight: parsePreflightFacts('overlay yes\nbridge-nf yes\nmodules yes\nmodprobe yes\nepoch 1000\nmac eth0 52:54:00:00:00:01\nend\n'),
  serviceRoute: { reachable: true, dev: 'eth0' },
  serviceIp: '10.96.0.1',
  controllerEpochSeconds: 1010,
  failSwapOn: true,
};
const run = (name: string, input: CheckInput) => PREFLIGHT_CHECKS.find((c) => c.name === name)!.run(input);

describe('preflight checks', () => {
  it("refuses kube-proxy's nftables mode on a kernel older than 5.13, naming the way out", () => {
    const nft = parseInventory(
      'ssh: { agent: true }\ncluster:\n  kubeProxy: { mode: nftables }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n',
      '/x/i.yaml',
      { env: {}, homeDir: '/x' },
    );
    if (!nft.ok) throw new Error('bad inventory');
    const on = (kernel: string) => run('nftables-kernel', { ...base, inventory: nft.inventory, facts: { ...base.facts, kernel } });
    expect(on('5.10.0-28-amd64')).toEqual({
      ok: false,
      problem: "Linux 5.10.0-28-amd64: kube-proxy's nftables mode needs 5.13 or later: use cluster.kubeProxy.mode iptables, or a newer kernel",
    });
    expect([on('5.13.0').ok, on('6.1.0-27-amd64').ok, on('').ok]).toEqual([true, true, false]);
    expect(run('nftables-kernel', { ...base, facts: { ...base.facts, kernel: '4.19' } }).ok).toBe(true);
  });

  it("admits a host whose machine is its artifacts' architecture; refuses another, naming the setting and the bundle to build", () => {
    const arm = parseInventory(
      'ssh: { agent: true }\ncluster:\n  artifacts: { source: bundle, bundle: /b }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: a1, address: 10.0.0.2, arch: arm64 }\n',
      '/x/i.yaml',
      { env: {}, homeDir: '/x' },
    );
    if (!arm.ok) throw new Error('bad inventory');
    const [cp1, a1] = arm.inventory.hosts as [CheckInput['host'], CheckInput['host']];
    const on = (host: CheckInput['host'], machine: string) => run('arch', { ...base, inventory: arm.inventory, host, facts: { ...base.facts, arch: machine } });
    expect(on(cp1, 'x86_64')).toEqual({ ok: true, note: 'x86_64 (amd64), the architecture of its artifacts' });
    expect(on(a1, 'aarch64')).toEqual({ ok: true, note: 'aarch64 (arm64), the architecture of its artifacts' });
    expect(on(cp1, 'aarch64')).toEqual({
      ok: false,
      problem:
        'this host is aarch64 (arm64) and the inventory gives it amd64 artifacts (its arch, amd64 when unnamed): set arch: arm64 on it (/x/i.yaml:5:5), with a bundle built for arm64 (kcluster bundle build --arch arm64)',
    });
    expect(on(a1, 'x86_64')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('the inventory gives it arm64 artifacts (its arch, amd64 when unnamed): set arch: amd64 on it (/x/i.yaml:6:5)'),
    });
    expect(on(a1, 'riscv64')).toEqual({ ok: false, problem: 'architecture riscv64 (uname -m): kcluster installs on amd64 and arm64 hosts only' });
    // Release mode: no bundle to build.
    expect(run('arch', { ...base, facts: { ...base.facts, arch: 'aarch64' } })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/set arch: arm64 on it \(\/x\/i\.yaml:3:5\)$/),
    });
  });

  it('passes a good control plane on every check', () => {
    expect(PREFLIGHT_CHECKS.map((c) => [c.name, c.run(base).ok])).toEqual(PREFLIGHT_CHECKS.map((c) => [c.name, true]));
  });

  it('explains swap, ports, kernel features, CPUs and a foreign installation', () => {
    expect(run('swap', { ...base, facts: { ...base.facts, swapOn: true } })).toEqual({ ok: false, problem: expect.stringContaining('swapoff -a') });
    expect(run('swap', { ...base, facts: { ...base.facts, swapOn: true }, failSwapOn: false }).ok).toBe(true);
    expect(run('ports', { ...base, facts: { ...base.facts, listeningTcpPorts: [22, 2379, 6443] } })).toEqual({
      ok: false,
      problem: 'TCP port(s) 2379, 6443 are in use: stop what listens there (ss -ltnp shows it)',
    });
    expect(run('ports', { ...base, facts: { ...base.facts, listeningTcpPorts: [6443] }, preflight: { ...base.preflight, markerCluster: 'kcluster' } }).ok).toBe(
      true,
    );
    expect(run('cpu', { ...base, facts: { ...base.facts, cpus: 1 } }).ok).toBe(false);
    expect(run('cpu', { ...base, host: inventory.hosts[1]!, facts: { ...base.facts, cpus: 1 } }).ok).toBe(true);
    expect(run('foreign-install', { ...base, preflight: { ...base.preflight, kubernetesDirExists: true } })).toEqual({
      ok: false,
      problem: expect.stringContaining('kcluster did not install this host'),
    });
    expect(run('foreign-install', { ...base, preflight: { ...base.preflight, foreignManifests: ['/etc/kubernetes/manifests/x.yaml'] } })).toEqual({
      ok: false,
      problem: expect.stringContaining('kubeadm reset'),
    });
    expect(run('clock', { ...base, controllerEpochSeconds: 2000 })).toEqual({ ok: false, problem: expect.stringContaining('1000 s off') });
  });

  it('kernel: a module modprobe can load passes (the runtime role loads it); only one it cannot fails', () => {
    const missingBoth = { ...base.preflight, overlayfs: false, bridgeNetfilter: false };
    expect(run('kernel', { ...base, preflight: { ...missingBoth, overlayLoadable: true, bridgeNetfilterLoadable: true } })).toEqual({
      ok: true,
      note: 'overlay and br_netfilter will be loaded by the container runtime role (and at every boot)',
    });
    expect(run('kernel', { ...base, preflight: { ...missingBoth, overlayfs: true, bridgeNetfilterLoadable: false } })).toEqual({
      ok: false,
      problem:
        "missing bridge netfilter (/proc/sys/net/bridge), module br_netfilter, and modprobe cannot load it: install the running kernel's modules (on Debian: its linux-image package) or use a kernel that has them",
    });
    expect(run('kernel', { ...base, preflight: { ...missingBoth, loadableModules: false } })).toEqual({
      ok: false,
      problem: expect.stringContaining('this host cannot load modules (a container?)'),
    });
    expect(run('kernel', { ...base, preflight: { ...missingBoth, loadableModules: false } })).toEqual({
      ok: false,
      problem: expect.stringContaining('module overlay and bridge netfilter'),
    });
    // A minimal Debian has no kmod: then modprobe loads nothing, and the way out is kmod, not a kernel.
    expect(run('kernel', { ...base, preflight: { ...missingBoth, modprobe: false } })).toEqual({
      ok: false,
      problem: expect.stringContaining('modprobe is missing: install it (Debian and Ubuntu package kmod: apt-get install kmod), and kcluster loads them'),
    });
  });

  it('commands: each missing command is named with the package that has it', () => {
    expect(run('commands', base)).toEqual({ ok: true, note: 'required commands present' });
    expect(run('commands', { ...base, preflight: { ...base.preflight, missingCommands: ['ip', 'mount', 'umount'] } })).toEqual({
      ok: false,
      problem:
        'missing commands: ip (Debian and Ubuntu package iproute2: apt-get install iproute2), mount and umount (Debian and Ubuntu package mount: apt-get install mount): install them with the OS package manager',
    });
  });

  it('reads whether modprobe is there', () => {
    expect(parsePreflightFacts('modules yes\nepoch 1\nend\n').modprobe).toBe(false);
    expect(parsePreflightFacts('modules yes\nmodprobe yes\nepoch 1\nend\n').modprobe).toBe(true);
  });

  it('service-route: no route to the first Service IP fails with how to add one', () => {
    expect(run('service-route', base)).toEqual({ ok: true, note: 'the Service range is routed (10.96.0.1 via eth0)' });
    const none = run('service-route', { ...base, serviceRoute: parseRoute('RTNETLINK answers: Network is unreachable\nexit 2\n') });
    expect(none).toEqual({
      ok: false,
      problem: expect.stringContaining('no route to the first Service IP 10.96.0.1 (RTNETLINK answers: Network is unreachable)'),
    });
    expect(none).toEqual({ ok: false, problem: expect.stringContaining('ip route add 10.96.0.0/12 dev INTERFACE') });
  });

  it('reads routes as `ip route get` prints them', () => {
    expect(parseRoute('10.96.0.1 via 10.231.0.1 dev host0 src 10.231.0.11 uid 0 \n    cache \nexit 0\n')).toEqual({ reachable: true, dev: 'host0' });
    expect(parseRoute('Error: any valid prefix is expected rather than "x".\nexit 1\n')).toMatchObject({ reachable: false });
    expect(() => parseRoute('')).toThrow('no exit status');
  });

  it('reads which modules modprobe could load', () => {
    const facts = parsePreflightFacts('overlay no\nbridge-nf no\nmodules yes\nloadable br_netfilter\nepoch 1\nend\n');
    expect([facts.overlayLoadable, facts.bridgeNetfilterLoadable]).toEqual([false, true]);
  });

  it('says what cgroup v1 means for the chosen version', () => {
    const v1 = { ...base, facts: { ...base.facts, cgroup: 'v1' as const } };
    expect(run('cgroup', v1)).toEqual({ ok: true, note: expect.stringContaining('failCgroupV1: false') });
  });

  it('finds hosts that share a hostname, machine-id or MAC', () => {
    const ids = [
      { host: 'a', hostname: 'node', machineId: 'm1', macs: ['aa'] },
      { host: 'b', hostname: 'node', machineId: 'm1', macs: ['bb'] },
      { host: 'c', hostname: 'c', machineId: 'm3', macs: ['cc'] },
    ];
    expect(duplicateIdentities(ids, 'a')).toEqual([
      'hostname node is also on b: give each host its own hostname (hostnamectl set-hostname)',
      'machine-id m1 is also on b: regenerate it (rm /etc/machine-id && systemd-machine-id-setup), cloned images share it',
    ]);
    expect(duplicateIdentities(ids, 'c')).toEqual([]);
  });

  it("wants free the ports of what will run there: every node's components, a control plane's, the node-local proxy's with several control planes and no load balancer, the NetworkPolicy agent's", () => {
    const load = (text: string) => {
      const r = parseInventory(text, '/x/inv.yaml', { env: {} });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return r.inventory;
    };
    const three = load(
      'ssh: { agent: true }\ncluster: { apiEndpoint: { port: 7443 } }\nhosts:\n' +
        ['1', '2', '3'].map((i) => `  - { name: cp${i}, address: 10.0.0.${i}, roles: [control-plane] }\n`).join('') +
        '  - { name: w1, address: 10.0.0.9, roles: [worker] }\n',
    );
    expect(portsWanted(three, three.hosts[0]!)).toEqual([7443, 2379, 2380, 2381, 10257, 10259, 10248, 10249, 10250, 10256, 6444, 9080]);
    expect(portsWanted(three, three.hosts[3]!)).toEqual([10248, 10249, 10250, 10256, 6444, 9080]);
    const one = load(
      'ssh: { agent: true }\ncluster: { networkPolicy: { enabled: false } }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n',
    );
    expect(portsWanted(one, one.hosts[0]!)).toEqual([6443, 2379, 2380, 2381, 10257, 10259, 10248, 10249, 10250, 10256]);
  });
});
