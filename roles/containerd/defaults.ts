// Defaults of the containerd role's vars; cluster, group and host vars override them.
import { DEFAULT_CGROUP_DRIVER } from '../../src/kubernetes/cluster/cgroup-driver.js';
import type { Vars } from '../../src/orchestrator/inventory/model.js';

export const containerdDefaults: Vars = {
  /** The OCI runtime containerd starts containers with (runc from the artifacts; crun, a wrapper...). */
  ociRuntimeBinary: '/usr/local/sbin/runc',
  /** systemd (kubeadm's default) or cgroupfs; the kubelet role uses the same var. */
  cgroupDriver: DEFAULT_CGROUP_DRIVER,
};
