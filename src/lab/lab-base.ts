// The lab's Debian base root filesystem: built once with debootstrap from this machine's own
// mirror, cached under /var/cache/kcluster/lab-base keyed by suite, packages and tweaks.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { debianMirror, machineAptMirrors } from './apt-sources.js';
import type { LabSuite } from './lab-settings.js';
import { runScript } from './run-script.js';

export const BASE_PACKAGES = [
  'systemd',
  'systemd-sysv',
  'dbus',
  'libpam-systemd',
  'openssh-server',
  'iproute2',
  'iputils-ping',
  'procps',
  'ca-certificates',
  'curl',
  'kmod',
  'iptables',
  'conntrack',
  'socat',
  'less',
  'sudo',
  'gnupg',
];

/** The base's packages: python3 is added only for labs that must host Ansible (benchmarks). */
export function basePackages(python: boolean): string[] {
  return python ? [...BASE_PACKAGES, 'python3'] : BASE_PACKAGES;
}

export function baseDir(scriptsDir: string, suite: LabSuite, packages: readonly string[]): string {
  const recipe = readFileSync(join(scriptsDir, 'build-base.sh'), 'utf8');
  const key = createHash('sha256')
    .update(`${suite}\n${packages.join(',')}\n${recipe}`)
    .digest('hex')
    .slice(0, 12);
  return join('/var/cache/kcluster/lab-base', `${suite}-${key}`, 'rootfs');
}

export async function ensureBase(scriptsDir: string, suite: LabSuite, python: boolean, log: (line: string) => void): Promise<string> {
  const packages = basePackages(python);
  const dir = baseDir(scriptsDir, suite, packages);
  const mirror = debianMirror(machineAptMirrors());
  if (!mirror) throw new Error("no Debian mirror in this machine's apt sources (/etc/apt/sources.list*): the lab base is built from it");
  // Labs brought up at once on a machine without this base: one builds it while the others wait,
  // then find it built (each would otherwise build its own, and the later renames would fail).
  mkdirSync(dirname(dir), { recursive: true });
  const lock = join(dirname(dir), '.build.lock');
  await runScript(join(scriptsDir, 'build-base.sh'), { BASE_DIR: dir, SUITE: suite, MIRROR: mirror, PACKAGES: packages.join(',') }, log, lock);
  return dir;
}
