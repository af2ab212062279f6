// Defaults of the kubelet role's vars; cluster, group and host vars override them.
import type { Vars } from '../../src/inventory/model.js';

export const kubeletDefaults: Vars = {
  cgroupDriver: 'systemd',
  /** The kubelet refuses to start with swap on, unless told otherwise (preflight checks swap). */
  failSwapOn: true,
};
