// The lab's pure parts: names, subnets, apt sources, the inventory it writes.
import { describe, expect, it } from 'vitest';
import { debianMirror, parseAptSources } from '../../../src/lab/apt-sources.js';
import { labInventoryYaml } from '../../../src/lab/lab-inventory.js';
import { labHosts, labIpv6Prefix, labSettings, parseLabSubnet, validateLabName } from '../../../src/lab/lab-settings.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

describe('lab settings', () => {
  it('accepts short lowercase names only', () => {
    expect(validateLabName('lab')).toBeUndefined();
    expect(validateLabName('Lab')).toContain('lowercase');
    expect(validateLabName('averyverylongname')).toContain('1-10');
    expect(validateLabName('x;rm')).toContain('lowercase');
  });
  it('takes /24 subnets and refuses the rest', () => {
    expect(parseLabSubnet('10.231.0.0/24')).toBe('10.231.0');
    expect(parseLabSubnet('10.231.0.0/16')).toEqual({ error: '--subnet must be an IPv4 /24 such as 10.231.0.0/24 (got "10.231.0.0/16")' });
    expect(parseLabSubnet('10.300.0.0/24')).toHaveProperty('error');
  });
  it('numbers hosts from .11, control planes first', () => {
    expect(labHosts({ name: 'lab', hosts: 3, controlPlanes: 2, net: '10.231.0' })).toEqual([
      { name: 'lab1', address: '10.231.0.11', roles: ['control-plane'] },
      { name: 'lab2', address: '10.231.0.12', roles: ['control-plane'] },
      { name: 'lab3', address: '10.231.0.13', roles: ['worker'] },
    ]);
  });
  it('writes an inventory that kcluster accepts', () => {
    const settings = labSettings({
      name: 'lab',
      hosts: 2,
      controlPlanes: 1,
      privileged: false,
      light: false,
      net: '10.231.0',
      subnet: '10.231.0.0/24',
      home: '/home/u',
    });
    const yaml = labInventoryYaml(settings, '/repo/src/kubernetes/inventory/inventory.schema.json');
    expect(yaml.split('\n')[0]).toBe('# yaml-language-server: $schema=/repo/src/kubernetes/inventory/inventory.schema.json');
    const result = parseInventory(yaml, '/home/u/.kcluster/labs/lab/inventory.yaml', { env: {}, homeDir: '/home/u' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.inventory.hosts.map((h) => [h.name, h.ssh.address, h.ssh.keyFile])).toEqual([
        ['lab1', '10.231.0.11', '/home/u/.kcluster/labs/lab/id_ed25519'],
        ['lab2', '10.231.0.12', '/home/u/.kcluster/labs/lab/id_ed25519'],
      ]);
      expect(result.inventory.ssh.knownHostsFile).toBe('/home/u/.kcluster/labs/lab/known_hosts');
      // The cluster's state lives with the lab (lab down removes it), never in ~/.kcluster/lab.
      expect(result.inventory.stateDir).toBe('/home/u/.kcluster/labs/lab/state');
    }
  });
  it('with --ipv6: each host gets the address of the lab /64 read from its IPv4 /24, and the inventory is dual-stack', () => {
    const settings = labSettings({
      name: 'lab',
      hosts: 2,
      controlPlanes: 1,
      privileged: false,
      light: false,
      net: '10.231.30',
      subnet: '10.231.30.0/24',
      home: '/home/u',
      ipv6: true,
    });
    expect(labIpv6Prefix('10.231.30')).toBe('fd00:231:30::');
    expect(labHosts(settings).map((h) => h.ipv6Address)).toEqual(['fd00:231:30::11', 'fd00:231:30::12']);
    const yaml = labInventoryYaml(settings, '/repo/src/kubernetes/inventory/inventory.schema.json');
    expect(yaml.split('\n')[1]).toBe('# Written by `kcluster lab up` for the lab "lab" (10.231.30.0/24, fd00:231:30::/64).');
    const result = parseInventory(yaml, '/home/u/.kcluster/labs/lab/inventory.yaml', { env: {}, homeDir: '/home/u' });
    // Only the key's absence (this test writes none): no warning of the dual-stack settings.
    expect(result.warnings.map((w) => w.path)).toEqual(['ssh.keyFile']);
    if (result.ok) {
      expect(result.inventory.cluster.ipv6).toEqual({ podCIDR: 'fd00:10:244::/56', serviceCIDR: 'fd00:10:96::/112' });
      expect(result.inventory.hosts.map((h) => h.ipv6Address)).toEqual(['fd00:231:30::11', 'fd00:231:30::12']);
    }
  });
});

describe('apt sources', () => {
  it('reads deb822 and one-line sources and picks the Debian mirror', () => {
    const deb822 = parseAptSources('Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n\nURIs: http://mirror.example/debian-security\n', true);
    const classic = parseAptSources('deb [arch=amd64] http://other.example/debian bookworm main\n# deb http://x/y z\n', false);
    expect(deb822).toEqual(['http://mirror.example/debian', 'http://mirror.example/debian-security']);
    expect(classic).toEqual(['http://other.example/debian']);
    expect(debianMirror(['http://mirror.example/debian-security', 'http://mirror.example/debian'])).toBe('http://mirror.example/debian');
  });
});
