// VM lab hosts (`kcluster lab up --vm`): each host a QEMU virtual machine with a stock Debian
// kernel (cgroup v2, loadable modules, writable sysctls, AppArmor), on the lab's bridge. Real
// kernels show what the nspawn lab hides: modules to load, sysctls to persist, a route to the
// Service range. Disks come from a debootstrapped base cached in /var/cache/kcluster/vm-base
// (scripts/vm-image.sh); scripts/vm-up.sh boots a VM and waits for its sshd.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LabSettings } from './lab-settings.js';
import { LAB_SUITES, labHosts, type LabSuite } from './lab-settings.js';
import { runScript } from './run-script.js';

export const VM_SUITES = LAB_SUITES;
export type VmSuite = LabSuite;

export interface Accelerator {
  /** QEMU's -accel value. */
  readonly accel: string;
  /** Why, for the output: the user should know a VM under TCG runs 10-20x slower. */
  readonly why: string;
}

/**
 * KVM when this machine's /dev/kvm can run a stock kernel; otherwise QEMU's software emulation.
 * A PVM host (kvm_pvm) exposes /dev/kvm but runs only PVM guest kernels: a stock kernel does
 * not get past its decompressor there.
 */
export function chooseAccelerator(probe: { kvmDevice: boolean; pvm: boolean; override?: string } = probeHost()): Accelerator {
  if (probe.override === 'tcg') return { accel: 'tcg,tb-size=256', why: 'software emulation (TCG), asked for by KCLUSTER_VM_ACCEL=tcg' };
  if (probe.override === 'kvm') return { accel: 'kvm', why: 'KVM, asked for by KCLUSTER_VM_ACCEL=kvm' };
  if (!probe.kvmDevice)
    return { accel: 'tcg,tb-size=256', why: 'software emulation (TCG): no /dev/kvm on this machine; VMs run about 10-20x slower than native' };
  if (probe.pvm)
    return {
      accel: 'tcg,tb-size=256',
      why: 'software emulation (TCG): /dev/kvm here is PVM (kvm_pvm), which runs only PVM guest kernels, not a stock Debian one; VMs run about 10-20x slower than native',
    };
  return { accel: 'kvm', why: 'KVM hardware virtualisation' };
}

function probeHost(): { kvmDevice: boolean; pvm: boolean; override?: string } {
  const override = process.env['KCLUSTER_VM_ACCEL'];
  return { kvmDevice: existsSync('/dev/kvm'), pvm: existsSync('/sys/module/kvm_pvm'), ...(override ? { override } : {}) };
}

/** Memory and CPUs a VM gets: a control plane needs 2 CPUs and about 2 GiB (preflight checks both). */
export function vmSize(roles: readonly string[]): { memoryMb: number; cpus: number } {
  return roles.includes('control-plane') ? { memoryMb: 3072, cpus: 2 } : { memoryMb: 2048, cpus: 1 };
}

/** Interface names hold 15 characters: "kv", the host's last octet, the lab name (a letter first, so unambiguous). */
export const tapOf = (settings: Pick<LabSettings, 'name'>, address: string): string => `kv${address.split('.')[3]}${settings.name}`;

export const vmDirOf = (settings: Pick<LabSettings, 'runDir'>, host: string): string => join(settings.runDir, 'hosts', host);

export async function vmLabUp(settings: LabSettings, suite: VmSuite, scriptsDir: string, log: (line: string) => void): Promise<Accelerator> {
  const accelerator = chooseAccelerator();
  log(`VMs: ${accelerator.why}`);
  const key = join(settings.homeDir, 'id_ed25519');
  if (!existsSync(key)) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `kcluster-lab-${settings.name}`, '-f', key]);
  const hosts = labHosts(settings);
  const common = { BRIDGE: settings.bridge, BRIDGE_ADDR: `${settings.net}.1/24`, SUITE: suite, SSH_KEY: key, QEMU_ACCEL: accelerator.accel };
  // Disks one after the other (the first builds the cached base), then every VM boots at once.
  for (const h of hosts) {
    await runScript(
      join(scriptsDir, 'vm-image.sh'),
      { ...common, VM_NAME: h.name, VM_DIR: vmDirOf(settings, h.name), VM_IP: `${h.address}/24`, VM_GW: `${settings.net}.1` },
      log,
    );
  }
  await Promise.all(
    hosts.map((h) => {
      const size = vmSize(h.roles);
      return runScript(
        join(scriptsDir, 'vm-up.sh'),
        {
          ...common,
          VM_NAME: h.name,
          VM_DIR: vmDirOf(settings, h.name),
          TAP: tapOf(settings, h.address),
          VM_MEM: String(size.memoryMb),
          VM_CPUS: String(size.cpus),
        },
        log,
      );
    }),
  );
  // One known_hosts and ssh_config for the lab, like the nspawn lab writes.
  writeFileSync(join(settings.homeDir, 'known_hosts'), hosts.map((h) => readFileSync(join(vmDirOf(settings, h.name), 'known_hosts'), 'utf8')).join(''), {
    mode: 0o600,
  });
  writeFileSync(
    join(settings.homeDir, 'ssh_config'),
    hosts
      .map(
        (h) =>
          `Host ${h.name}\n  HostName ${h.address}\n  User root\n  IdentityFile ${key}\n  UserKnownHostsFile ${join(settings.homeDir, 'known_hosts')}\n  StrictHostKeyChecking yes\n  BatchMode yes\n  LogLevel ERROR\n`,
      )
      .join(''),
    { mode: 0o600 },
  );
  return accelerator;
}

/** Stops every VM of the lab (clean poweroff, then by pid) and removes its tap device. */
export async function vmLabDown(settings: LabSettings, hostNames: readonly string[], scriptsDir: string, log: (line: string) => void): Promise<void> {
  await Promise.all(
    hostNames.map((name) => {
      const env = join(vmDirOf(settings, name), 'vm.env');
      if (!existsSync(env)) return Promise.resolve();
      const address = /^VM_ADDR=(.*)$/m.exec(readFileSync(env, 'utf8'))?.[1] ?? '';
      return runScript(
        join(scriptsDir, 'vm-down.sh'),
        { VM_NAME: name, VM_DIR: vmDirOf(settings, name), BRIDGE: settings.bridge, TAP: tapOf(settings, address) },
        log,
      );
    }),
  );
}
