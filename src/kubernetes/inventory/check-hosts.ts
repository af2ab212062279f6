// Host and group checks: unique names and endpoints, bastion references, the topology, and
// group membership. Values of the wrong shape are skipped: the schema reported them.
import { canonicalIp } from './ipv6.js';
import type { RawInventory } from './raw-inventory.js';
import { BUILTIN_GROUPS } from './resolve-inventory.js';
import type { Report } from './semantic-checks.js';
import { isRecord, listAt, recordAt, stringAt } from './shape.js';
import { closest } from '../../orchestrator/inventory/suggest.js';

const ROLES: readonly string[] = ['control-plane', 'worker', 'etcd'];
const isBuiltinGroup = (name: string): boolean => (BUILTIN_GROUPS as readonly string[]).includes(name);

function hostList(raw: RawInventory): unknown[] {
  return listAt(raw, 'hosts') ?? [];
}

function hostNames(raw: RawInventory): string[] {
  return hostList(raw).flatMap((h) => stringAt(h, 'name') ?? []);
}

function portOf(host: unknown, raw: RawInventory): unknown {
  return (isRecord(host) ? host['port'] : undefined) ?? recordAt(raw, 'ssh')?.['port'] ?? 22;
}

/** Suggestions cost an edit distance against every host: computed for this many unknown names per check only. */
const MAX_SUGGESTIONS = 20;

interface HostIndex {
  readonly byName: ReadonlyMap<string, unknown>;
  readonly names: readonly string[];
  suggestions: number;
}

function checkBastion(index: HostIndex, host: unknown, i: number, report: Report): void {
  const bastion = isRecord(host) ? host['bastion'] : undefined;
  if (typeof bastion !== 'string' || bastion === '') return;
  const target = index.byName.get(bastion);
  if (bastion === stringAt(host, 'name')) {
    report(['hosts', i, 'bastion'], 'a host cannot be its own bastion');
  } else if (target === undefined) {
    const guess = index.suggestions++ < MAX_SUGGESTIONS ? closest(bastion, index.names) : undefined;
    report(['hosts', i, 'bastion'], `no host named "${bastion}"${guess ? `; did you mean "${guess}"?` : ''}`);
  } else if (isRecord(target) && target['bastion'] !== undefined) {
    // The SSH layer opens the bastion's own connection directly, so a chain would be ignored.
    report(
      ['hosts', i, 'bastion'],
      `"${bastion}" is itself reached through a bastion: chains of bastions are not supported; name a bastion that is reachable directly`,
    );
  }
}

function checkTopology(raw: RawInventory, report: Report, tolerant: boolean): void {
  const hosts = hostList(raw);
  const rolesOf = (h: unknown): string[] => (listAt(h, 'roles') ?? []).filter((r): r is string => typeof r === 'string');
  // A misspelt role or a malformed host already has its own error; "no control plane" would
  // only repeat it.
  const shapeFailed = hosts.length === 0 || hosts.some((h) => !isRecord(h) || rolesOf(h).some((r) => !ROLES.includes(r)));
  const controlPlanes = hosts.filter((h) => rolesOf(h).includes('control-plane'));
  if (controlPlanes.length === 0 && !(tolerant && shapeFailed)) {
    report(['hosts'], 'no host has the control-plane role: give at least one host `roles: [control-plane]`');
  }
  const explicitEtcd = hosts.filter((h) => rolesOf(h).includes('etcd'));
  const etcdCount = explicitEtcd.length > 0 ? explicitEtcd.length : controlPlanes.length;
  if (etcdCount > 0 && etcdCount % 2 === 0) {
    report(['hosts'], `${etcdCount} etcd members: an even count tolerates no more failures than ${etcdCount - 1}; use an odd number`, 'warning');
  }
}

export function checkHosts(raw: RawInventory, report: Report, tolerant: boolean): void {
  const byName = new Map<string, unknown>();
  for (const h of hostList(raw)) {
    const n = stringAt(h, 'name');
    if (n !== undefined && !byName.has(n)) byName.set(n, h);
  }
  const index: HostIndex = { byName, names: [...byName.keys()], suggestions: 0 };
  const names = new Map<string, number>();
  const endpoints = new Map<string, number>();
  const ipv6Addresses = new Map<string, number>();
  hostList(raw).forEach((host, i) => {
    const name = stringAt(host, 'name');
    if (name !== undefined) {
      const first = names.get(name);
      if (first !== undefined) report(['hosts', i, 'name'], `duplicate host name "${name}" (also hosts[${first}])`);
      else names.set(name, i);
      if (isBuiltinGroup(name)) {
        report(['hosts', i, 'name'], `"${name}" is the name of a built-in group: host selectors could not tell them apart; rename the host`);
      }
    }
    const address = stringAt(host, 'address');
    const port = portOf(host, raw);
    if (address !== undefined && typeof port === 'number') {
      const endpoint = `${address.toLowerCase()}:${port}`;
      const same = endpoints.get(endpoint);
      if (same !== undefined) report(['hosts', i, 'address'], `duplicate address ${endpoint} (also hosts[${same}])`);
      else endpoints.set(endpoint, i);
    }
    const ipv6Address = stringAt(host, 'ipv6Address');
    if (ipv6Address !== undefined) {
      const key = canonicalIp(ipv6Address);
      const same = ipv6Addresses.get(key);
      if (same !== undefined) report(['hosts', i, 'ipv6Address'], `duplicate IPv6 address ${ipv6Address} (also hosts[${same}])`);
      else ipv6Addresses.set(key, i);
    }
    checkBastion(index, host, i, report);
  });
  checkTopology(raw, report, tolerant);
}

export function checkGroups(raw: RawInventory, report: Report): void {
  const names = hostNames(raw);
  const known = new Set(names);
  let suggestions = 0;
  for (const [group, def] of Object.entries(recordAt(raw, 'groups') ?? {})) {
    if (isBuiltinGroup(group)) {
      if (isRecord(def) && def['hosts'] !== undefined) {
        report(['groups', group, 'hosts'], `"${group}" is a built-in group: its members come from each host's roles; set roles on the hosts instead`);
      }
      continue;
    }
    if (known.has(group)) {
      report(['groups'], `group "${group}" has the name of a host: host selectors could not tell them apart; rename the group`, 'error', group);
    }
    (listAt(def, 'hosts') ?? []).forEach((name, j) => {
      if (typeof name === 'string' && !known.has(name)) {
        const guess = suggestions++ < MAX_SUGGESTIONS ? closest(name, names) : undefined;
        report(['groups', group, 'hosts', j], `no host named "${name}"${guess ? `; did you mean "${guess}"?` : ''}`);
      }
    });
  }
}
