// The preflight checks, as pure functions of one host's facts: each returns what it found
// ("ok: ...") or a failure that says how to fix it. Names are what --ignore-preflight takes.
import { noChange, skip, type Change } from '../../src/orchestrator/engine/change.js';
import type { HostFacts } from '../../src/orchestrator/facts/host-facts.js';
import { REQUIRED_COMMANDS, type PreflightFacts } from '../../src/kubernetes/facts/preflight-facts.js';
import type { RouteState } from '../../src/orchestrator/facts/route-to.js';
import type { HostSettings, Inventory } from '../../src/orchestrator/inventory/model.js';
import { minorOf } from '../../src/kubernetes/artifacts/component-versions.js';
import { ARCHES, archOf, DEFAULT_ARCH, hostArch } from '../../src/kubernetes/artifacts/arch.js';
import { LOCAL_PROXY_PORT, topologyOf } from '../../src/kubernetes/cluster/topology.js';

export type CheckResult = { readonly ok: true; readonly note: string } | { readonly ok: false; readonly problem: string };

/** A check's plan: nothing to do (with what it found), a skip when `--ignore-preflight NAME` names it, else its failure. */
export function checkOutcome(name: string, result: CheckResult, ignored: ReadonlySet<string>): Change<null> {
  if (result.ok) return noChange(result.note);
  if (ignored.has(name)) return skip(`ignored (--ignore-preflight ${name}): ${result.problem}`);
  throw new Error(`preflight ${name}: ${result.problem} (to go on knowingly: --ignore-preflight ${name})`);
}

export interface CheckInput {
  readonly host: HostSettings;
  readonly inventory: Inventory;
  readonly facts: HostFacts;
  readonly preflight: PreflightFacts;
  /** The route to the first Service IP (`serviceIp`). */
  readonly serviceRoute: RouteState;
  readonly serviceIp: string;
  readonly controllerEpochSeconds: number;
  readonly failSwapOn: boolean;
}

export interface PreflightCheck {
  readonly name: string;
  readonly run: (input: CheckInput) => CheckResult;
}

const ok = (note: string): CheckResult => ({ ok: true, note });
const fail = (problem: string): CheckResult => ({ ok: false, problem });
const isControlPlane = (h: HostSettings): boolean => h.roles.includes('control-plane');

/** TCP ports a control plane's own components take, besides the API port: etcd's client, peer and metrics ports, the controller-manager's, the scheduler's. */
export const CONTROL_PLANE_PORTS = [2379, 2380, 2381, 10257, 10259] as const;
/** TCP ports every node's components take: the kubelet's healthz and API, kube-proxy's metrics and healthz. */
export const NODE_PORTS = [10248, 10249, 10250, 10256] as const;
/** The NetworkPolicy agent's metrics (roles/addons/templates/kube-network-policies.yaml.hbs), on loopback. */
export const NETWORK_POLICY_METRICS_PORT = 9080;

/** The TCP ports `host` must have free before kcluster installs there. */
export function portsWanted(inventory: Inventory, host: HostSettings): number[] {
  return [
    ...(isControlPlane(host) ? [inventory.cluster.apiEndpoint.port, ...CONTROL_PLANE_PORTS] : []),
    ...NODE_PORTS,
    ...(topologyOf(inventory).localProxy ? [LOCAL_PROXY_PORT] : []),
    ...(inventory.cluster.networkPolicy.enabled ? [NETWORK_POLICY_METRICS_PORT] : []),
  ];
}
const MAX_CLOCK_SKEW_S = 60;

/** "ip (Debian and Ubuntu package iproute2: apt-get install iproute2)": each missing command with the package that has it. */
function missingWithPackages(missing: readonly string[]): string {
  const packages: Readonly<Record<string, string>> = REQUIRED_COMMANDS;
  const byPackage = new Map<string, string[]>();
  for (const command of missing) byPackage.set(packages[command] ?? command, [...(byPackage.get(packages[command] ?? command) ?? []), command]);
  return [...byPackage].map(([pkg, commands]) => `${commands.join(' and ')} (Debian and Ubuntu package ${pkg}: apt-get install ${pkg})`).join(', ');
}

export const PREFLIGHT_CHECKS: readonly PreflightCheck[] = [
  {
    name: 'os',
    run: ({ facts }) =>
      facts.init === 'systemd'
        ? ok(`${facts.os.prettyName || facts.os.id}, systemd`)
        : fail(`PID 1 is "${facts.init}", not systemd: kcluster runs containerd and the kubelet as systemd services`),
  },
  {
    name: 'arch',
    run: ({ facts, host, inventory }) => {
      const machine = archOf(facts.arch);
      const given = hostArch(host);
      if (machine === undefined) return fail(`architecture ${facts.arch} (uname -m): kcluster installs on ${ARCHES.join(' and ')} hosts only`);
      if (machine === given) return ok(`${facts.arch} (${machine}), the architecture of its artifacts`);
      return fail(
        `this host is ${facts.arch} (${machine}) and the inventory gives it ${given} artifacts (its arch, ${DEFAULT_ARCH} when unnamed): ` +
          `set arch: ${machine} on it (${host.source})${inventory.cluster.artifacts.kind === 'bundle' ? `, with a bundle built for ${machine} (kcluster bundle build --arch ${machine})` : ''}`,
      );
    },
  },
  {
    name: 'cgroup',
    run: ({ facts, inventory }) => {
      const [major, minor] = minorOf(inventory.cluster.kubernetesVersion).split('.').map(Number) as [number, number];
      if (facts.cgroup === 'v2') return ok('cgroup v2');
      if (major === 1 && minor >= 35) {
        return ok(
          `cgroup ${facts.cgroup}: the kubelet ${inventory.cluster.kubernetesVersion} refuses cgroup v1 by default; kcluster sets failCgroupV1: false on this host so it runs, but v1 is in maintenance upstream: plan a move to cgroup v2 (systemd.unified_cgroup_hierarchy=1)`,
        );
      }
      return ok(`cgroup ${facts.cgroup} (supported by ${inventory.cluster.kubernetesVersion}, in maintenance mode upstream)`);
    },
  },
  {
    name: 'swap',
    run: ({ facts, failSwapOn }) =>
      !facts.swapOn
        ? ok('swap is off')
        : failSwapOn
          ? fail('swap is on: turn it off (swapoff -a, and remove swap entries from /etc/fstab), or set var failSwapOn: false to run the kubelet with swap')
          : ok('swap is on, allowed by failSwapOn: false'),
  },
  {
    name: 'cpu',
    run: ({ facts, host }) => {
      const need = isControlPlane(host) ? 2 : 1;
      return facts.cpus >= need
        ? ok(`${facts.cpus} CPUs`)
        : fail(`${facts.cpus} CPU(s), a ${isControlPlane(host) ? 'control plane' : 'node'} needs at least ${need}: give the machine more CPUs`);
    },
  },
  {
    name: 'memory',
    run: ({ facts, host }) => {
      const needMb = isControlPlane(host) ? 1700 : 1024;
      const mb = Math.floor(facts.memoryBytes / 1024 / 1024);
      return mb >= needMb
        ? ok(`${mb} MiB of memory`)
        : fail(`${mb} MiB of memory, a ${isControlPlane(host) ? 'control plane' : 'node'} needs at least ${needMb} MiB`);
    },
  },
  {
    name: 'ports',
    run: ({ facts, host, preflight, inventory }) => {
      if (preflight.markerCluster === inventory.cluster.name) return ok(`ports held by this cluster's own components`);
      const wanted = portsWanted(inventory, host);
      const taken = wanted.filter((p) => facts.listeningTcpPorts.includes(p)).sort((a, b) => a - b);
      return taken.length === 0
        ? ok(`ports ${wanted.join(', ')} are free`)
        : fail(`TCP port(s) ${taken.join(', ')} are in use: stop what listens there (ss -ltnp shows it)`);
    },
  },
  {
    name: 'kernel',
    run: ({ preflight }) => {
      // A module kcluster can load (modprobe finds it) is loaded by the runtime role and listed
      // in /etc/modules-load.d; only a kernel without it fails here.
      const modules = [
        { name: 'overlay', what: 'the overlay filesystem', available: preflight.overlayfs, loadable: preflight.overlayLoadable },
        {
          name: 'br_netfilter',
          what: 'bridge netfilter (/proc/sys/net/bridge)',
          available: preflight.bridgeNetfilter,
          loadable: preflight.bridgeNetfilterLoadable,
        },
      ];
      const missing = modules.filter((m) => !m.available && !m.loadable);
      if (missing.length > 0) {
        const fix = !preflight.loadableModules
          ? 'this host cannot load modules (a container?): load them on the machine that runs it, or build them into the kernel'
          : !preflight.modprobe
            ? 'modprobe is missing: install it (Debian and Ubuntu package kmod: apt-get install kmod), and kcluster loads them'
            : "install the running kernel's modules (on Debian: its linux-image package) or use a kernel that has them";
        return fail(
          `missing ${missing.map((m) => `${m.what}, module ${m.name}`).join(' and ')}, and modprobe cannot load ${missing.length > 1 ? 'them' : 'it'}: ${fix}`,
        );
      }
      const toLoad = modules.filter((m) => !m.available).map((m) => m.name);
      return ok(
        toLoad.length === 0
          ? 'overlay and bridge netfilter are available'
          : `${toLoad.join(' and ')} will be loaded by the container runtime role (and at every boot)`,
      );
    },
  },
  {
    name: 'nftables-kernel',
    run: ({ facts, inventory }) => {
      if (inventory.cluster.kubeProxy.mode !== 'nftables') return ok('kube-proxy in iptables mode');
      // kube-proxy's nftables mode refuses to start below 5.13 (it needs the nft features that
      // came with it): said here, before the nodes run a kube-proxy that crash-loops.
      const [major = 0, minor = 0] = (/^(\d+)\.(\d+)/.exec(facts.kernel) ?? []).slice(1).map(Number);
      return major > 5 || (major === 5 && minor >= 13)
        ? ok(`Linux ${facts.kernel} runs kube-proxy's nftables mode`)
        : fail(
            `Linux ${facts.kernel || 'of an unknown version'}: kube-proxy's nftables mode needs 5.13 or later: use cluster.kubeProxy.mode iptables, or a newer kernel`,
          );
    },
  },
  {
    name: 'service-route',
    run: ({ serviceRoute, serviceIp, inventory }) =>
      serviceRoute.reachable
        ? ok(`the Service range is routed (${serviceIp} via ${serviceRoute.dev})`)
        : fail(
            `no route to the first Service IP ${serviceIp} (${serviceRoute.error ?? 'no route'}): traffic to a Service needs a route before kube-proxy's rules can catch it, or pods that reach the API through it (flannel, CoreDNS) fail with "network is unreachable": add a default route (ip route add default via GATEWAY) or a route for the Service range (ip route add ${inventory.cluster.serviceCIDR} dev INTERFACE), and persist it in the host's network configuration`,
          ),
  },
  {
    name: 'commands',
    run: ({ preflight }) =>
      preflight.missingCommands.length === 0
        ? ok('required commands present')
        : fail(`missing commands: ${missingWithPackages(preflight.missingCommands)}: install them with the OS package manager`),
  },
  {
    name: 'foreign-install',
    run: ({ preflight, inventory }) => {
      if (preflight.markerCluster !== undefined && preflight.markerCluster !== inventory.cluster.name) {
        return fail(
          `this host belongs to the kcluster cluster "${preflight.markerCluster}", not "${inventory.cluster.name}": reset it first, or fix cluster.name`,
        );
      }
      if (preflight.foreignManifests.length > 0) {
        return fail(
          `static pod manifests not written by kcluster: ${preflight.foreignManifests.join(', ')}: a previous installation (kubeadm?) is in the way: reset it (kubeadm reset) or remove /etc/kubernetes`,
        );
      }
      if (preflight.markerCluster === undefined && preflight.kubernetesDirExists) {
        return fail('/etc/kubernetes exists but kcluster did not install this host: a previous installation is in the way: reset it or remove /etc/kubernetes');
      }
      return ok(preflight.markerCluster ? `installed by kcluster for ${preflight.markerCluster}` : 'no previous installation');
    },
  },
  {
    name: 'clock',
    run: ({ preflight, controllerEpochSeconds }) => {
      const skew = Math.abs(preflight.epochSeconds - controllerEpochSeconds);
      return skew <= MAX_CLOCK_SKEW_S
        ? ok(`clock within ${skew} s of the controller`)
        : fail(`clock is ${skew} s off the controller's: certificates may look not-yet-valid or expired; synchronise time (systemd-timesyncd or chrony)`);
    },
  },
];

export interface HostIdentity {
  readonly host: string;
  readonly hostname: string;
  readonly machineId: string;
  readonly macs: readonly string[];
}

/** Across hosts: hostname, machine-id and MAC addresses must be unique (cloned VMs often share them). */
export function duplicateIdentities(identities: readonly HostIdentity[], host: string): string[] {
  const me = identities.find((i) => i.host === host);
  if (!me) return [];
  const others = identities.filter((i) => i.host !== host);
  const problems: string[] = [];
  const clash = (what: string, mine: string, pick: (i: HostIdentity) => readonly string[], fix: string): void => {
    const with_ = others.filter((o) => pick(o).includes(mine)).map((o) => o.host);
    if (mine !== '' && with_.length > 0) problems.push(`${what} ${mine} is also on ${with_.join(', ')}: ${fix}`);
  };
  clash('hostname', me.hostname, (i) => [i.hostname], 'give each host its own hostname (hostnamectl set-hostname)');
  clash('machine-id', me.machineId, (i) => [i.machineId], 'regenerate it (rm /etc/machine-id && systemd-machine-id-setup), cloned images share it');
  for (const mac of me.macs) clash('MAC address', mac, (i) => i.macs, 'give each interface its own MAC address');
  return problems;
}
