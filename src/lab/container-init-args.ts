// What a lab container's systemd is told at boot (systemd-nspawn passes the arguments after
// --boot to init, which reads them as its kernel command line). Containers share this
// machine's cgroup hierarchy: on a cgroup v1 (or hybrid) machine, systemd 256 and later
// (trixie has 257) refuse to boot under v1 unless SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 says
// it is meant; bookworm's systemd 252 needs nothing.
import { statfsSync } from 'node:fs';
import type { LabSuite } from './lab-settings.js';

/** statfs f_type of cgroup2 (linux/magic.h CGROUP2_SUPER_MAGIC). */
const CGROUP2_SUPER_MAGIC = 0x63677270;

export function machineHasCgroupV2(): boolean {
  return statfsSync('/sys/fs/cgroup').type === CGROUP2_SUPER_MAGIC;
}

/** Pure: the init arguments of a host of `suite` on a machine with (or without) cgroup v2 only. */
export function containerInitArgs(suite: LabSuite, cgroupV2: boolean): string[] {
  return suite === 'bookworm' || cgroupV2 ? [] : ['SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1'];
}
