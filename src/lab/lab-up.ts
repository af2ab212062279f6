// `kcluster lab up`: a lab of real hosts on this machine, ready for `kcluster run`.
import { join } from 'node:path';
import { packageRoot } from '../orchestrator/util/package-root.js';
import { SCHEMA_PATH } from '../kubernetes/inventory/schema-diagnostics.js';
import { ensureBase } from './lab-base.js';
import { labInventoryYaml } from './lab-inventory.js';
import { labPreflight } from './lab-preflight.js';
import {
  containerSuiteOf,
  LAB_SUITES,
  labHosts,
  labIpv6Prefix,
  labSettings,
  parseLabSubnet,
  validateLabName,
  type LabSettings,
  type LabSuite,
} from './lab-settings.js';
import { containerInitArgs, machineHasCgroupV2 } from './container-init-args.js';
import { readLabInfo, writeLabInfo, type LabInfo } from './lab-state.js';
import { runScript } from './run-script.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { VM_SUITES, vmLabDown, vmLabUp, type VmSuite } from './vm-lab.js';
import { hostRunning, labIsRunning } from './lab-status.js';

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
  /** VM hosts with a stock Debian kernel of this suite (`--vm`). */
  readonly vm?: VmSuite;
  /** Container hosts: the Debian release of their root filesystem (`--suite`; default bookworm). */
  readonly suite?: LabSuite;
  /** IPv6 addresses too, and a dual-stack inventory (`--ipv6`). */
  readonly ipv6?: boolean;
  readonly log: (line: string) => void;
}

export class LabError extends Error {}

export function scriptsDir(): string {
  return join(packageRoot(), 'src', 'lab', 'scripts');
}

/** What lab.json records: the settings and where the lab's files are. */
function labInfoOf(settings: LabSettings, extra: Pick<LabInfo, 'python' | 'accelerator'>): LabInfo {
  return {
    ...settings,
    ...extra,
    inventoryFile: join(settings.homeDir, 'inventory.yaml'),
    sshConfigFile: join(settings.homeDir, 'ssh_config'),
    knownHostsFile: join(settings.homeDir, 'known_hosts'),
    keyFile: join(settings.homeDir, 'id_ed25519'),
    hostList: labHosts(settings),
    createdAt: new Date().toISOString(),
  };
}

/** What up.sh and light-up.sh read. */
function hostsScriptEnv(settings: LabSettings, net: string, base: string, suite: LabSuite): Record<string, string> {
  return {
    NAME: settings.name,
    RUN_DIR: settings.runDir,
    HOME_DIR: settings.homeDir,
    BASE: base,
    BRIDGE: settings.bridge,
    NET: net,
    COUNT: String(settings.hosts),
    PRIVILEGED: settings.privileged ? '1' : '0',
    IPV6_PREFIX: settings.ipv6 ? labIpv6Prefix(net) : '',
    APT_PROXY_CMD: join(packageRoot(), 'dist', 'src', 'lab', 'apt-proxy.js'),
    INIT_ARGS: containerInitArgs(suite, machineHasCgroupV2()).join(' '),
  };
}

export async function labUp(options: LabUpOptions): Promise<{ info: LabInfo; alreadyUp: boolean; restarted?: string[] }> {
  const nameProblem = validateLabName(options.name);
  if (nameProblem) throw new LabError(nameProblem);
  // A /24 from .11 upward holds 240 hosts; full hosts (systemd each) are limited by memory.
  const maxHosts = options.light ? 240 : 100;
  if (!Number.isInteger(options.hosts) || options.hosts < 1 || options.hosts > maxHosts)
    throw new LabError(`--hosts must be 1-${maxHosts}${options.light ? '' : ' (up to 240 with --light)'} (got ${options.hosts})`);
  if (options.light && options.privileged)
    throw new LabError('--light and --privileged exclude each other: light hosts have no systemd to run a container runtime');
  if (options.vm !== undefined) {
    if (options.light || options.privileged || options.python)
      throw new LabError('--vm excludes --light, --privileged and --python: VM hosts are whole machines that run container runtimes as they are');
    if (!(VM_SUITES as readonly string[]).includes(options.vm)) throw new LabError(`--suite must be one of ${VM_SUITES.join(', ')} (got "${options.vm}")`);
    if (options.hosts > 8) throw new LabError(`--vm labs have at most 8 hosts (each VM takes 2-3 GiB of memory; got ${options.hosts})`);
    if (options.ipv6) throw new LabError('--ipv6 is for container labs: VM labs are IPv4 only for now');
    if (options.suite !== undefined) throw new LabError('a VM lab takes its Debian release from --vm (the CLI: --vm --suite NAME), not from suite');
  }
  if (options.suite !== undefined && !(LAB_SUITES as readonly string[]).includes(options.suite))
    throw new LabError(`--suite must be one of ${LAB_SUITES.join(', ')} (got "${options.suite}")`);
  if (options.ipv6 && options.light) throw new LabError('--ipv6 and --light exclude each other: light hosts are for scale tests of IPv4 SSH');
  if (!Number.isInteger(options.controlPlanes) || options.controlPlanes < 1 || options.controlPlanes > options.hosts) {
    throw new LabError(`--control-planes must be 1-${options.hosts} (got ${options.controlPlanes})`);
  }
  const net = parseLabSubnet(options.subnet);
  if (typeof net !== 'string') throw new LabError(net.error);
  /** Container hosts' release (a VM lab's is options.vm). */
  const suite = options.suite ?? 'bookworm';
  const settings = labSettings({
    name: options.name,
    hosts: options.hosts,
    controlPlanes: options.controlPlanes,
    privileged: options.privileged,
    light: options.light,
    net,
    subnet: options.subnet,
    ...(options.bundle !== undefined ? { bundle: options.bundle } : {}),
    ...(options.vm !== undefined ? { vm: options.vm } : {}),
    ...(options.vm === undefined ? { suite } : {}),
    ...(options.ipv6 ? { ipv6: true } : {}),
  });

  const existing = readLabInfo(options.name);
  if (existing && labIsRunning(existing)) {
    const same =
      existing.vm === settings.vm &&
      existing.hosts === settings.hosts &&
      existing.light === settings.light &&
      (existing.python ?? false) === (options.python ?? false) &&
      existing.controlPlanes === settings.controlPlanes &&
      existing.privileged === settings.privileged &&
      existing.subnet === settings.subnet &&
      containerSuiteOf(existing) === containerSuiteOf(settings) &&
      (existing.ipv6 ?? false) === (settings.ipv6 ?? false);
    if (!same)
      throw new LabError(
        `the lab "${options.name}" is already up with another shape (${existing.hosts} hosts, ${existing.subnet}${existing.privileged ? ', privileged' : ''}${existing.ipv6 ? ', IPv6' : ''}, ${containerSuiteOf(existing) ?? `${existing.vm} VMs`}): run \`kcluster lab down --name ${options.name}\` first`,
      );
    const stopped = existing.hostList.filter((h) => !hostRunning(existing, h.name)).map((h) => h.name);
    if (stopped.length === 0 || existing.vm !== undefined || existing.light) return { info: existing, alreadyUp: true };
    // A host killed or powered off boots again with the disk it had, as a machine would.
    await runScript(
      join(scriptsDir(), 'up.sh'),
      hostsScriptEnv(settings, net, await ensureBase(scriptsDir(), suite, options.python ?? false, options.log), suite),
      options.log,
    );
    return { info: existing, alreadyUp: true, restarted: stopped };
  }
  const problems = labPreflight(net, settings.bridge, settings.vm !== undefined);
  if (problems.length > 0) throw new LabError(problems.join('\n'));

  if (settings.vm !== undefined) return vmLab(settings, options.log);
  const base = await ensureBase(scriptsDir(), suite, options.python ?? false, options.log);
  const info = labInfoOf(settings, { python: options.python ?? false });
  const env = hostsScriptEnv(settings, net, base, suite);
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

async function vmLab(settings: LabSettings, log: (line: string) => void): Promise<{ info: LabInfo; alreadyUp: boolean }> {
  mkdirSync(settings.homeDir, { recursive: true, mode: 0o700 });
  let accelerator;
  try {
    accelerator = await vmLabUp(settings, settings.vm!, scriptsDir(), log);
  } catch (error) {
    await vmLabDown(
      settings,
      labHosts(settings).map((h) => h.name),
      scriptsDir(),
      log,
    ).catch(() => undefined);
    await runScript(
      join(scriptsDir(), 'down.sh'),
      { NAME: settings.name, RUN_DIR: settings.runDir, HOME_DIR: settings.homeDir, BRIDGE: settings.bridge },
      log,
    ).catch(() => undefined);
    throw new LabError(`lab up --vm failed: ${(error as Error).message}`);
  }
  const info = labInfoOf(settings, { python: false, accelerator: accelerator.why });
  writeFileSync(info.inventoryFile, labInventoryYaml(settings, join(packageRoot(), SCHEMA_PATH)), { mode: 0o600 });
  writeLabInfo(info);
  return { info, alreadyUp: false };
}
