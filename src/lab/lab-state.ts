// lab.json: what a lab is and where its pieces are; `lab down` and `lab status` read it.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { LabSettings } from './lab-settings.js';

export interface LabInfo extends LabSettings {
  readonly inventoryFile: string;
  readonly sshConfigFile: string;
  readonly knownHostsFile: string;
  readonly keyFile: string;
  readonly hostList: readonly { name: string; address: string; ipv6Address?: string; roles: string[] }[];
  readonly createdAt: string;
  /** Hosts have python3 (`lab up --python`). */
  readonly python?: boolean;
  /** VM labs: how the VMs run (KVM or TCG) and why. */
  readonly accelerator?: string;
}

export function labsHome(home = homedir()): string {
  return join(home, '.kcluster', 'labs');
}

export function writeLabInfo(info: LabInfo): void {
  writeFileSync(join(info.homeDir, 'lab.json'), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function readLabInfo(name: string, home = homedir()): LabInfo | undefined {
  const file = join(labsHome(home), name, 'lab.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LabInfo) : undefined;
}

export function knownLabs(home = homedir()): string[] {
  const dir = labsHome(home);
  return existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'lab.json'))) : [];
}
