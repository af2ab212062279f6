// Defaults of the kubelet role's vars; cluster, group and host vars override them.
import { DEFAULT_CGROUP_DRIVER } from '../../src/kubernetes/cluster/cgroup-driver.js';
import type { Vars } from '../../src/orchestrator/inventory/model.js';

export const kubeletDefaults: Vars = {
  /** Must match the runtime's: the same var and default as the containerd and docker roles. */
  cgroupDriver: DEFAULT_CGROUP_DRIVER,
  /** The kubelet refuses to start with swap on, unless told otherwise (preflight checks swap). */
  failSwapOn: true,
};
