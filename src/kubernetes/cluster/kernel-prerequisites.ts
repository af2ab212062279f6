// The kernel modules every Kubernetes node needs, as the container runtime's first tasks
// (Kubernetes lists them as runtime prerequisites): overlay for the runtime's snapshots and
// br_netfilter so bridged pod traffic passes iptables (kube-proxy, the CNI). Each is loaded when
// its feature is missing and listed in /etc/modules-load.d for the next boot. Preflight uses the
// same probes to tell a missing module kcluster can load from one it cannot.
import { shellRaw, type ShellCommand } from '../../orchestrator/ssh/quote.js';
import type { AnyTask } from '../../orchestrator/engine/types.js';
import { kernelModule } from '../../orchestrator/tasks/kernel-module.js';

export interface KernelPrerequisite {
  readonly name: string;
  readonly purpose: string;
  readonly probe: ShellCommand;
}

export const KERNEL_PREREQUISITES: readonly KernelPrerequisite[] = [
  { name: 'overlay', purpose: "the container runtime's overlay snapshots", probe: shellRaw('grep -qw overlay /proc/filesystems') },
  { name: 'br_netfilter', purpose: 'bridged pod traffic through iptables (kube-proxy, the pod network)', probe: shellRaw('[ -d /proc/sys/net/bridge ]') },
];

export function kernelPrerequisiteTasks(tags: readonly string[]): AnyTask[] {
  return KERNEL_PREREQUISITES.map((m) => kernelModule({ ...m, tags }));
}
