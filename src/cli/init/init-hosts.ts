// `kcluster init`'s host arguments: `ADDRESS` or `NAME=ADDRESS`, checked here so that a typo
// is refused with the flag and the value that hold it, before anything is written.
import { parseIpv4 } from '../../kubernetes/inventory/cidr.js';

export interface InitHost {
  readonly name: string;
  readonly address: string;
  readonly role: 'control-plane' | 'worker';
}

/** A Kubernetes node name, as the inventory schema wants it (lowercase DNS name). */
const NODE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** A DNS host name: letters, digits and '-' in dot-separated labels, not all digits. */
const DNS_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Why `address` is no IPv4 address or DNS name, or undefined when it is one. */
export function addressProblem(address: string): string | undefined {
  if (address === '') return 'is empty';
  if (/^[0-9.]+$/.test(address)) return parseIpv4(address) === undefined ? 'is not an IPv4 address (four numbers 0-255, such as 10.0.0.1)' : undefined;
  if (address.length > 253 || !DNS_NAME.test(address)) return "is neither an IPv4 address nor a DNS name (letters, digits, '-' and '.')";
  return undefined;
}

/** The hosts the arguments name, in order, or every problem with them (each naming its flag and value). */
export function initHosts(controlPlanes: readonly string[], workers: readonly string[]): { hosts: InitHost[]; problems: string[] } {
  const problems: string[] = [];
  const hosts: InitHost[] = [];
  const given = [
    ...controlPlanes.map((value, i) => ({ value, role: 'control-plane' as const, flag: '--control-plane', fallback: `cp${i + 1}` })),
    ...workers.map((value, i) => ({ value, role: 'worker' as const, flag: '--worker', fallback: `worker${i + 1}` })),
  ];
  for (const { value, role, flag, fallback } of given) {
    const eq = value.indexOf('=');
    const name = eq < 0 ? fallback : value.slice(0, eq);
    const address = eq < 0 ? value : value.slice(eq + 1);
    const bad = addressProblem(address);
    if (bad !== undefined) problems.push(`${flag} ${value}: the address ${JSON.stringify(address)} ${bad}`);
    if (!NODE_NAME.test(name) || name.length > 253)
      problems.push(
        `${flag} ${value}: the name ${JSON.stringify(name)} is not a node name (lowercase letters, digits, '-' and '.'); write NAME=ADDRESS, e.g. cp1=10.0.0.1`,
      );
    hosts.push({ name, address, role });
  }
  if (controlPlanes.length === 0) problems.push('no control plane: give at least one --control-plane ADDRESS');
  for (const key of ['name', 'address'] as const) {
    const seen = new Set<string>();
    for (const host of hosts) {
      if (seen.has(host[key])) problems.push(`the ${key} ${host[key]} is given twice: each host needs its own`);
      seen.add(host[key]);
    }
  }
  return { hosts, problems };
}
