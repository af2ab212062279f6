// Checks the JSON Schema cannot express: duplicates, topology, CIDRs, versions, references.
import { existsSync } from 'node:fs';
import { cidrContains, cidrsOverlap, parseCidr, parseIpv4, type Cidr } from './cidr.js';
import { formatPath, type Diagnostic } from './diagnostics.js';
import type { Inventory } from './model.js';
import type { RawInventory } from './raw-inventory.js';
import { BUILTIN_GROUPS } from './resolve-inventory.js';
import type { SourceMap } from './source-map.js';
import { closest } from './suggest.js';

type Report = (path: (string | number)[], message: string, severity?: 'error' | 'warning', atKey?: string) => void;

function checkHosts(raw: RawInventory, report: Report): void {
  const names = new Map<string, number>();
  const endpoints = new Map<string, number>();
  raw.hosts.forEach((host, i) => {
    const first = names.get(host.name);
    if (first !== undefined) report(['hosts', i, 'name'], `duplicate host name "${host.name}" (also hosts[${first}])`);
    else names.set(host.name, i);
    const endpoint = `${host.address}:${host.port ?? raw.ssh?.port ?? 22}`;
    const same = endpoints.get(endpoint);
    if (same !== undefined) report(['hosts', i, 'address'], `duplicate address ${endpoint} (also hosts[${same}])`);
    else endpoints.set(endpoint, i);
    if (typeof host.bastion === 'string') {
      if (host.bastion === host.name) report(['hosts', i, 'bastion'], 'a host cannot be its own bastion');
      else if (!raw.hosts.some((h) => h.name === host.bastion)) {
        const guess = closest(host.bastion, raw.hosts.map((h) => h.name));
        report(['hosts', i, 'bastion'], `no host named "${host.bastion}"${guess ? `; did you mean "${guess}"?` : ''}`);
      }
    }
  });
  const controlPlanes = raw.hosts.filter((h) => h.roles?.includes('control-plane'));
  if (controlPlanes.length === 0) {
    report(['hosts'], 'no host has the control-plane role: give at least one host `roles: [control-plane]`');
  }
  const explicitEtcd = raw.hosts.filter((h) => h.roles?.includes('etcd'));
  const etcdCount = explicitEtcd.length > 0 ? explicitEtcd.length : controlPlanes.length;
  if (etcdCount > 0 && etcdCount % 2 === 0) {
    report(['hosts'], `${etcdCount} etcd members: an even count tolerates no more failures than ${etcdCount - 1}; use an odd number`, 'warning');
  }
}

function checkCluster(raw: RawInventory, report: Report): void {
  const cluster = raw.cluster ?? {};
  if (typeof cluster.kubernetesVersion === 'string' && !/^v[0-9]+\.[0-9]+\.[0-9]+$/.test(cluster.kubernetesVersion)) {
    report(['cluster', 'kubernetesVersion'], `must be a version such as v1.34.2 (got "${cluster.kubernetesVersion}")`);
  }
  const cidrs: { key: 'podCIDR' | 'serviceCIDR'; cidr: Cidr }[] = [];
  for (const key of ['podCIDR', 'serviceCIDR'] as const) {
    const text = cluster[key];
    if (text === undefined) continue;
    const parsed = parseCidr(text);
    if (typeof parsed === 'string') report(['cluster', key], `${parsed} (got "${text}")`);
    else cidrs.push({ key, cidr: parsed });
  }
  const pod = cidrs.find((c) => c.key === 'podCIDR')?.cidr ?? (cluster.podCIDR === undefined ? (parseCidr('10.244.0.0/16') as Cidr) : undefined);
  const service = cidrs.find((c) => c.key === 'serviceCIDR')?.cidr ?? (cluster.serviceCIDR === undefined ? (parseCidr('10.96.0.0/12') as Cidr) : undefined);
  if (pod && service && cidrsOverlap(pod, service)) {
    report(['cluster', cluster.serviceCIDR !== undefined ? 'serviceCIDR' : 'podCIDR'], `pod CIDR ${pod.text} and service CIDR ${service.text} overlap: choose disjoint ranges`);
  }
  raw.hosts.forEach((host, i) => {
    if (typeof host.address !== 'string') return;
    const address = parseIpv4(host.address);
    if (address === undefined) return;
    for (const [name, cidr] of [['pod', pod], ['service', service]] as const) {
      if (cidr && cidrContains(cidr, address)) {
        report(['hosts', i, 'address'], `${host.address} lies inside the ${name} CIDR ${cidr.text}: traffic to this host would be routed into the cluster`, 'warning');
      }
    }
  });
}

function checkGroups(raw: RawInventory, report: Report): void {
  const hostNames = raw.hosts.map((h) => h.name);
  for (const [group, def] of Object.entries(raw.groups ?? {})) {
    if ((BUILTIN_GROUPS as readonly string[]).includes(group)) {
      if (def.hosts !== undefined) {
        report(['groups', group, 'hosts'], `"${group}" is a built-in group: its members come from each host's roles; set roles on the hosts instead`);
      }
      continue;
    }
    (def.hosts ?? []).forEach((name, j) => {
      if (!hostNames.includes(name)) {
        const guess = closest(name, hostNames);
        report(['groups', group, 'hosts', j], `no host named "${name}"${guess ? `; did you mean "${guess}"?` : ''}`);
      }
    });
  }
}

function checkAuth(inventory: Inventory, raw: RawInventory, report: Report): void {
  inventory.hosts.forEach((host, i) => {
    const ssh = host.ssh;
    if (!ssh.keyFile && !ssh.agent && !ssh.passwordEnv) {
      report(['hosts', i], 'no way to log in: set ssh.keyFile (or keyFile on the host), agent: true with SSH_AUTH_SOCK set, or passwordEnv');
    } else if (ssh.keyFile && !existsSync(ssh.keyFile)) {
      const own = raw.hosts[i]?.keyFile !== undefined;
      report(own ? ['hosts', i, 'keyFile'] : raw.ssh?.keyFile !== undefined ? ['ssh', 'keyFile'] : ['hosts', i], `key file ${ssh.keyFile} does not exist`, 'warning');
    }
  });
}

/**
 * `tolerant`: the document failed the schema, so a value may have the wrong type; a check
 * that trips over one has nothing to add to the schema's own error for it and is skipped.
 */
export function semanticDiagnostics(
  raw: RawInventory,
  inventory: Inventory | undefined,
  map: SourceMap,
  file: string,
  options: { tolerant?: boolean } = {},
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const report: Report = (path, message, severity = 'error') => {
    const text = `${formatPath(path)}\u0000${message}`;
    if (seen.has(text)) return;
    seen.add(text);
    out.push({ file, ...map.value(path), path: formatPath(path), message, severity });
  };
  const checks = [checkHosts, checkCluster, checkGroups];
  for (const check of checks) {
    try {
      check(raw, report);
    } catch (error) {
      if (!options.tolerant) throw error;
    }
  }
  if (inventory) checkAuth(inventory, raw, report);
  return out;
}
