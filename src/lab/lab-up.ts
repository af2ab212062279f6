// `kcluster lab up`: a lab of real hosts on this machine, ready for `kcluster run`.
import { join } from 'node:path';
import { packageRoot } from '../util/package-root.js';
import { SCHEMA_PATH } from '../inventory/schema-diagnostics.js';
import { ensureBase } from './lab-base.js';
import { labInventoryYaml } from './lab-inventory.js';
import { labPreflight } from './lab-preflight.js';
import { labHosts, labSettings, parseLabSubnet, validateLabName } from './lab-settings.js';
import { readLabInfo, writeLabInfo, type LabInfo } from './lab-state.js';
import { runScript } from './run-script.js';
import { writeFileSync } from 'node:fs';
import { labIsRunning } from './lab-status.js';

export interface LabUpOptions {
  readonly name: string;
  readonly hosts: number;
  readonly controlPlanes: number;
  readonly privileged: boolean;
  readonly light: boolean;
  /** Add python3 to the hosts (Ansible needs it; kcluster does not). */
  readonly python?: boolean;
  readonly subnet: string;
  /** Artifact bundle the written inventory installs from. */
  readonly bundle?: string;
  readonly log: (line: string) => void;
}

export class LabError extends Error {}

export function scriptsDir(): string {
  return join(packageRoot(), 'src', 'lab', 'scripts');
}

export async function labUp(options: LabUpOptions): Promise<{ info: LabInfo; alreadyUp: boolean }> {
  const nameProblem = validateLabName(options.name);
  if (nameProblem) throw new LabError(nameProblem);
  // A /24 from .11 upward holds 240 hosts; full hosts (systemd each) are limited by memory.
  const maxHosts = options.light ? 240 : 100;
  if (!Number.isInteger(options.hosts) || options.hosts < 1 || options.hosts > maxHosts) throw new LabError(`--hosts must be 1-${maxHosts}${options.light ? '' : ' (up to 240 with --light)'} (got ${options.hosts})`);
  if (options.light && options.privileged) throw new LabError('--light and --privileged exclude each other: light hosts have no systemd to run a container runtime');
  if (!Number.isInteger(options.controlPlanes) || options.controlPlanes < 1 || options.controlPlanes > options.hosts) {
    throw new LabError(`--control-planes must be 1-${options.hosts} (got ${options.controlPlanes})`);
  }
  const net = parseLabSubnet(options.subnet);
  if (typeof net !== 'string') throw new LabError(net.error);
  const settings = labSettings({ name: options.name, hosts: options.hosts, controlPlanes: options.controlPlanes, privileged: options.privileged, light: options.light, net, subnet: options.subnet, ...(options.bundle !== undefined ? { bundle: options.bundle } : {}) });

  const existing = readLabInfo(options.name);
  if (existing && labIsRunning(existing)) {
    const same = existing.hosts === settings.hosts && existing.light === settings.light && (existing.python ?? false) === (options.python ?? false) && existing.controlPlanes === settings.controlPlanes && existing.privileged === settings.privileged && existing.subnet === settings.subnet;
    if (!same) throw new LabError(`the lab "${options.name}" is already up with another shape (${existing.hosts} hosts, ${existing.subnet}${existing.privileged ? ', privileged' : ''}): run \`kcluster lab down --name ${options.name}\` first`);
    return { info: existing, alreadyUp: true };
  }
  const problems = labPreflight(net, settings.bridge);
  if (problems.length > 0) throw new LabError(problems.join('\n'));

  const base = await ensureBase(scriptsDir(), options.python ?? false, options.log);
  const info: LabInfo = {
    ...settings,
    python: options.python ?? false,
    inventoryFile: join(settings.homeDir, 'inventory.yaml'),
    sshConfigFile: join(settings.homeDir, 'ssh_config'),
    knownHostsFile: join(settings.homeDir, 'known_hosts'),
    keyFile: join(settings.homeDir, 'id_ed25519'),
    hostList: labHosts(settings),
    createdAt: new Date().toISOString(),
  };
  const env = {
    NAME: settings.name,
    RUN_DIR: settings.runDir,
    HOME_DIR: settings.homeDir,
    BASE: base,
    BRIDGE: settings.bridge,
    NET: net,
    COUNT: String(settings.hosts),
    PRIVILEGED: settings.privileged ? '1' : '0',
    APT_PROXY_CMD: join(packageRoot(), 'dist', 'src', 'lab', 'apt-proxy.js'),
  };
  try {
    await runScript(join(scriptsDir(), settings.light ? 'light-up.sh' : 'up.sh'), env, options.log);
  } catch (error) {
    // Leave nothing half-built behind.
    await runScript(join(scriptsDir(), 'down.sh'), env, options.log).catch(() => undefined);
    throw new LabError(`lab up failed: ${(error as Error).message}`);
  }
  writeFileSync(info.inventoryFile, labInventoryYaml(settings, join(packageRoot(), SCHEMA_PATH)), { mode: 0o600 });
  writeLabInfo(info);
  return { info, alreadyUp: false };
}
