// The VM lab's pure choices: the accelerator (and the reason given), VM sizes, tap names, and
// the inventory a VM lab writes (none of the nspawn lab's adaptations).
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chooseAccelerator, tapOf, vmSize } from '../../../src/lab/vm-lab.js';
import { labInventoryYaml } from '../../../src/lab/lab-inventory.js';
import { labSettings } from '../../../src/lab/lab-settings.js';

describe('VM lab', () => {
  it('uses KVM only where it can run a stock kernel, and says why not', () => {
    expect(chooseAccelerator({ kvmDevice: true, pvm: false })).toEqual({ accel: 'kvm', why: 'KVM hardware virtualisation' });
    expect(chooseAccelerator({ kvmDevice: true, pvm: true })).toMatchObject({
      accel: 'tcg,tb-size=256',
      why: expect.stringContaining('/dev/kvm here is PVM (kvm_pvm)'),
    });
    expect(chooseAccelerator({ kvmDevice: false, pvm: false })).toMatchObject({ accel: 'tcg,tb-size=256', why: expect.stringContaining('no /dev/kvm') });
    expect(chooseAccelerator({ kvmDevice: true, pvm: false, override: 'tcg' }).accel).toBe('tcg,tb-size=256');
  });
  it('sizes a control plane for preflight (2 CPUs, 3 GiB) and a worker smaller', () => {
    expect(vmSize(['control-plane'])).toEqual({ memoryMb: 3072, cpus: 2 });
    expect(vmSize(['worker'])).toEqual({ memoryMb: 2048, cpus: 1 });
  });
  it('names taps within the 15 characters of an interface name, one per host and lab', () => {
    const longest = tapOf({ name: 'abcdefghij' }, '10.231.9.254');
    expect(longest).toBe('kv254abcdefghij');
    expect(longest.length).toBeLessThanOrEqual(15);
    expect(tapOf({ name: 'a1' }, '10.0.0.11')).not.toBe(tapOf({ name: 'a' }, '10.0.0.111'));
  });
  it('writes an inventory without the nspawn adaptations (runc wrapper, cgroupfs, conntrack), with longer waits', () => {
    const settings = labSettings({
      name: 'vml',
      hosts: 2,
      controlPlanes: 1,
      privileged: false,
      light: false,
      net: '10.231.9',
      subnet: '10.231.9.0/24',
      home: '/home/u',
      bundle: '/b',
      vm: 'bookworm',
    });
    const doc = parse(labInventoryYaml(settings, '/schema.json')) as Record<string, unknown>;
    expect(doc['vars']).toEqual({ readyTimeoutSeconds: 1200 });
    expect(doc['cluster']).toEqual({ name: 'vml', artifacts: { source: 'bundle', bundle: '/b' } });
    expect(doc['hosts']).toEqual([
      { name: 'vml1', address: '10.231.9.11', roles: ['control-plane'] },
      { name: 'vml2', address: '10.231.9.12', roles: ['worker'] },
    ]);
  });
});
