// Which cgroup hierarchy the host runs: v2 (unified) or v1 (including hybrid setups). The
// kubelet from v1.35 refuses v1 unless its configuration says failCgroupV1: false.
import { shellRaw } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export type CgroupVersion = 'v1' | 'v2';

export const cgroupVersion: Fact<CgroupVersion> = {
  key: 'cgroup-version',
  script: shellRaw('stat -fc %T /sys/fs/cgroup/'),
  parse(stdout, code) {
    if (code !== 0) throw new Error('cannot stat /sys/fs/cgroup');
    return stdout.trim() === 'cgroup2fs' ? 'v2' : 'v1';
  },
};
