// One cgroup driver for the runtime and the kubelet: one default, one check.
import { describe, expect, it } from 'vitest';
import { cgroupDriverOf, DEFAULT_CGROUP_DRIVER } from '../../../src/kubernetes/cluster/cgroup-driver.js';
import { containerdDefaults } from '../../../roles/containerd/defaults.js';
import { kubeletDefaults } from '../../../roles/kubelet/defaults.js';
import { hostContext } from '../tasks/support/host-context.js';

describe('cgroup driver', () => {
  it('defaults to systemd, in both roles that read it', () => {
    expect(cgroupDriverOf(hostContext('node-1'))).toBe('systemd');
    expect(containerdDefaults['cgroupDriver']).toBe(DEFAULT_CGROUP_DRIVER);
    expect(kubeletDefaults['cgroupDriver']).toBe(DEFAULT_CGROUP_DRIVER);
  });
  it('takes cgroupfs, and refuses anything else naming the host', () => {
    expect(cgroupDriverOf(hostContext('node-1', { cgroupDriver: 'cgroupfs' }))).toBe('cgroupfs');
    expect(() => cgroupDriverOf(hostContext('node-2', { cgroupDriver: 'Systemd' }))).toThrow('node-2: var cgroupDriver must be systemd or cgroupfs (got "Systemd")');
  });
});
