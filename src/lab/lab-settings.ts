// Names, addresses and paths of a lab, derived from its name and subnet (pure).
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Debian releases lab hosts run, containers and VMs alike (`--suite`). */
export const LAB_SUITES = ['bookworm', 'trixie'] as const;
export type LabSuite = (typeof LAB_SUITES)[number];

export interface LabSettings {
  readonly name: string;
  readonly hosts: number;
  readonly controlPlanes: number;
  readonly privileged: boolean;
  /** Light hosts: network namespace + overlay root + sshd, no systemd (scale tests). */
  readonly light: boolean;
  /** First three octets of the /24, e.g. "10.231.0". */
  readonly net: string;
  readonly subnet: string;
  readonly bridge: string;
  /** Overlay layers, data dirs, pids: on a real filesystem (not overlay, not tmpfs). */
  readonly runDir: string;
  /** What the user reads: inventory, ssh_config, known_hosts, key, lab.json. */
  readonly homeDir: string;
  /** Artifact bundle the lab's inventory installs from (directory or tarball), if any. */
  readonly bundle?: string;
  /** VM hosts (QEMU, a stock Debian kernel of this suite) instead of nspawn containers. */
  readonly vm?: LabSuite;
  /** Container labs: the Debian release of the hosts' root filesystem (absent in labs made before it could be chosen: bookworm). */
  readonly suite?: LabSuite;
  /** IPv6 too (`--ipv6`): the bridge and every host get an address of labIpv6Prefix(net), and the inventory is dual-stack. */
  readonly ipv6?: boolean;
}

export const LAB_ROOT = '/var/lib/kcluster/labs';

/** The release of a container lab's hosts (labs made before `--suite` hold bookworm); undefined for a VM lab. */
export const containerSuiteOf = (settings: Pick<LabSettings, 'vm' | 'suite'>): LabSuite | undefined =>
  settings.vm !== undefined ? undefined : (settings.suite ?? 'bookworm');

export function validateLabName(name: string): string | undefined {
  if (!/^[a-z][a-z0-9]{0,9}$/.test(name)) return `lab name "${name}" must be 1-10 lowercase letters and digits, starting with a letter`;
  return undefined;
}

/** Only /24 subnets: hosts are .11 upward, the machine's side of the bridge is .1. */
export function parseLabSubnet(subnet: string): string | { error: string } {
  const m = /^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.0\/24$/.exec(subnet);
  if (!m || [m[1], m[2], m[3]].some((o) => Number(o) > 255)) return { error: `--subnet must be an IPv4 /24 such as 10.231.0.0/24 (got "${subnet}")` };
  return `${m[1]}.${m[2]}.${m[3]}`;
}

/**
 * The lab's unique-local IPv6 /64, read as its IPv4 /24: 10.231.30 gives fd00:231:30:: (the
 * octets written as hex groups). The machine's side is ::1, hosts ::11 upward, as in IPv4.
 */
export const labIpv6Prefix = (net: string): string => `fd00:${net.split('.').slice(1).join(':')}::`;

export function labSettings(options: {
  name: string;
  hosts: number;
  controlPlanes: number;
  privileged: boolean;
  light: boolean;
  net: string;
  subnet: string;
  home?: string;
  bundle?: string;
  vm?: LabSuite;
  suite?: LabSuite;
  ipv6?: boolean;
}): LabSettings {
  const { home: _home, ...rest } = options;
  return {
    ...rest,
    bridge: `kc-${options.name}`,
    runDir: join(LAB_ROOT, options.name),
    homeDir: join(options.home ?? homedir(), '.kcluster', 'labs', options.name),
  };
}

export function labHosts(
  settings: Pick<LabSettings, 'name' | 'hosts' | 'controlPlanes' | 'net' | 'ipv6'>,
): { name: string; address: string; ipv6Address?: string; roles: string[] }[] {
  return Array.from({ length: settings.hosts }, (_, i) => ({
    name: `${settings.name}${i + 1}`,
    address: `${settings.net}.${11 + i}`,
    ...(settings.ipv6 ? { ipv6Address: `${labIpv6Prefix(settings.net)}${11 + i}` } : {}),
    roles: i < settings.controlPlanes ? ['control-plane'] : ['worker'],
  }));
}
