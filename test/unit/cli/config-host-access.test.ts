// `kcluster config --host` starts with how kcluster reaches the host (what it inherited from
// `ssh:`, sudo, its bastion) and the vars its roles read there, set or defaulted (issue 44:
// config lacked per-host vars and SSH settings).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostAccessLines } from '../../../playbooks/host-access.js';
import { loadInventoryText } from '../support/inventory-text.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-host-access-'));
writeFileSync(join(dir, 'key'), 'k\n', { mode: 0o600 });

describe('config --host: access and vars', () => {
  it('names the endpoint, login, sudo and bastion a host inherits, and each var its roles read with where its value came from', () => {
    const inventory = loadInventoryText(
      dir,
      [
        'cluster: { containerRuntime: docker }',
        'ssh: { user: debian, keyFile: ./key, passwordEnv: X }',
        'hosts:',
        '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }',
        '  - { name: w1, address: 10.0.0.2, port: 2222, bastion: cp1, vars: { cgroupDriver: cgroupfs, nodeLabels: { tier: web } } }',
        '',
      ].join('\n'),
    );
    const lines = hostAccessLines(inventory, 'w1');
    expect(lines[0]).toMatch(/^## how kcluster reaches w1 \(.*inventory-\w+\.yaml:5:5\)$/);
    expect(lines[1]).toBe(`ssh: debian@10.0.0.2:2222, login with key ${join(dir, 'key')}; commands as root through sudo`);
    expect(lines[2]).toBe(`through the bastion cp1: debian@10.0.0.1:22, login with key ${join(dir, 'key')}`);
    expect(lines.slice(lines.indexOf("## the vars its roles read (the inventory's, else the role's default)") + 1)).toEqual([
      'cgroupDriver: "cgroupfs"',
      'failSwapOn: true  # default',
      `ociRuntimeBinary: "(Docker's own)"  # default`,
      'dockerPackages: ["docker.io"]  # default',
      'nodeLabels: {"tier":"web"}',
    ]);
  });
});
