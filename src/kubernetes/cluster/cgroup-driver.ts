// The cgroup driver the container runtime and the kubelet share: the var `cgroupDriver`
// (systemd, kubeadm's default, or cgroupfs), read and checked in one place for the containerd,
// docker and kubelet roles, so that they can never disagree on its default.
import type { HostContext } from '../../orchestrator/engine/types.js';
import { HostError } from '../../orchestrator/ssh/host-error.js';

export type CgroupDriver = 'systemd' | 'cgroupfs';

export const DEFAULT_CGROUP_DRIVER: CgroupDriver = 'systemd';

export function cgroupDriverOf(ctx: Pick<HostContext, 'host' | 'vars'>): CgroupDriver {
  const driver = ctx.vars['cgroupDriver'] ?? DEFAULT_CGROUP_DRIVER;
  if (driver !== 'systemd' && driver !== 'cgroupfs') throw new HostError(ctx.host.name, `var cgroupDriver must be systemd or cgroupfs (got ${JSON.stringify(driver)})`);
  return driver;
}
