// Lab hosts of either Debian release (issue 42: `kcluster lab up --suite trixie` for containers
// as for VMs): what the hosts' systemd is told on a cgroup v1 machine, the base cached per
// release, and a release kcluster does not know refused before anything starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerInitArgs } from '../../../src/lab/container-init-args.js';
import { baseDir, BASE_PACKAGES } from '../../../src/lab/lab-base.js';
import { labUp } from '../../../src/lab/lab-up.js';

const up = (extra: Record<string, unknown>) =>
  labUp({ name: 'suitetest', hosts: 1, controlPlanes: 1, privileged: true, light: false, subnet: '10.231.250.0/24', log: () => {}, ...extra });

describe('lab suites', () => {
  it('tells a trixie host on a cgroup v1 machine that v1 is meant (systemd 257 refuses it otherwise), and nothing else', () => {
    expect(containerInitArgs('trixie', false)).toEqual(['SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1']);
    expect(containerInitArgs('trixie', true)).toEqual([]);
    expect(containerInitArgs('bookworm', false)).toEqual([]);
  });

  it('caches one base per release, and keeps the bookworm key it had', () => {
    const scripts = mkdtempSync(join(tmpdir(), 'kc-lab-suite-'));
    writeFileSync(join(scripts, 'build-base.sh'), '#!/bin/bash\n');
    const bookworm = baseDir(scripts, 'bookworm', BASE_PACKAGES);
    const trixie = baseDir(scripts, 'trixie', BASE_PACKAGES);
    expect(bookworm).toMatch(/^\/var\/cache\/kcluster\/lab-base\/bookworm-[0-9a-f]{12}\/rootfs$/);
    expect(trixie).toMatch(/^\/var\/cache\/kcluster\/lab-base\/trixie-[0-9a-f]{12}\/rootfs$/);
    expect(trixie.replace('trixie', 'bookworm')).not.toBe(bookworm);
  });

  it('refuses a release it does not know, and a container suite given to a VM lab, before anything starts', async () => {
    await expect(up({ suite: 'sid' })).rejects.toThrow('--suite must be one of bookworm, trixie (got "sid")');
    await expect(up({ vm: 'trixie', privileged: false, suite: 'trixie' })).rejects.toThrow('a VM lab takes its Debian release from --vm');
  });
});
