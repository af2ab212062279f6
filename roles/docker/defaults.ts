// Defaults of the docker role's vars; cluster, group and host vars override them.
import type { Vars } from '../../src/orchestrator/inventory/model.js';

export const dockerDefaults: Vars = {
  /** The OS packages that provide Docker Engine (Debian and Ubuntu: docker.io). */
  dockerPackages: ['docker.io'],
  /** An OCI runtime Docker should use instead of its own runc (crun, a wrapper); empty: its own. */
  ociRuntimeBinary: '',
  /** systemd (kubeadm's default) or cgroupfs; the kubelet role uses the same var. */
  cgroupDriver: 'systemd',
};
