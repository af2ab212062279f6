// The Docker path on a host without a package manager (issue 42): Docker Engine is an OS
// package, not in the bundle, so preflight refuses such a host up front, naming the packages,
// the missing installer and the containerd alternative, instead of the docker role failing
// half-way on "apt-get: not found". The same check over real SSH on a lab host whose apt is
// moved away: test/integration/docker-packages-preflight.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerPackagesCheckTask, dockerPackagesProblem, type DockerPackagesFacts } from '../../../roles/preflight/docker-packages.js';
import { preflightRole } from '../../../roles/preflight/index.js';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import { topologyOf } from '../../../src/kubernetes/cluster/topology.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';
import { loadInventoryText } from '../support/inventory-text.js';
import { TWO_HOSTS } from './support/addon-fixture.js';

const debian = (installed: boolean) => ({ installed, family: 'debian' as const, ...(installed ? { version: '26.1.5+dfsg1-9+b9' } : {}) });
const facts = (over: Partial<DockerPackagesFacts>): DockerPackagesFacts => ({
  packages: { 'docker.io': debian(false) },
  installers: { 'apt-get': '/usr/bin/apt-get', dnf: null },
  ...over,
});

describe('preflight docker-packages', () => {
  it('passes when every package is installed, whatever the installer', () => {
    expect(dockerPackagesProblem(['docker.io'], facts({ packages: { 'docker.io': debian(true) }, installers: { 'apt-get': null, dnf: null } }))).toEqual({
      ok: true,
      note: 'installed: docker.io',
    });
  });

  it('passes when a package is missing and the family installer is there: the docker role installs it', () => {
    expect(dockerPackagesProblem(['docker.io'], facts({}))).toEqual({ ok: true, note: 'docker.io to be installed with apt-get by the docker role' });
  });

  it('refuses a missing package on a host without its family installer, naming packages, installer, install command and containerd', () => {
    const result = dockerPackagesProblem(
      ['docker.io', 'containerd'],
      facts({
        packages: { 'docker.io': debian(false), containerd: debian(false) },
        installers: { 'apt-get': null, dnf: '/usr/bin/dnf' },
      }),
    );
    expect(result.ok).toBe(false);
    const problem = (result as { problem: string }).problem;
    expect(problem).toContain('OS packages docker.io, containerd (dockerPackages)');
    expect(problem).toContain('no apt-get to install them');
    expect(problem).toContain('apt-get install -y --no-install-recommends -- docker.io containerd');
    expect(problem).toContain('containerRuntime: containerd');
  });

  it('is in the preflight role for containerRuntime docker only, and fails the plan with the ignore hint', () => {
    const root = mkdtempSync(join(tmpdir(), 'kc-docker-preflight-'));
    const rolesOf = (cluster: string): string[] => {
      const inventory = loadInventoryText(root, `${cluster}${TWO_HOSTS}`);
      return preflightRole({ inventory, topology: topologyOf(inventory), ignorePreflight: new Set<string>() } as unknown as ClusterInputs).tasks.map(
        (t) => t.name,
      );
    };
    expect(rolesOf('cluster:\n  containerRuntime: docker\n')).toContain('preflight docker-packages');
    expect(rolesOf('')).not.toContain('preflight docker-packages');

    const inventory = loadInventoryText(root, `cluster:\n  containerRuntime: docker\n${TWO_HOSTS}`);
    const ctx = { host: inventory.hosts[0], inventory, vars: {} } as unknown as HostContext;
    const values = { 'package:docker.io': debian(false), 'installer:apt-get': null, 'installer:dnf': null };
    expect(() => dockerPackagesCheckTask(new Set()).plan(values as never, ctx)).toThrow(/preflight docker-packages: .* --ignore-preflight docker-packages/);
    const ignored = dockerPackagesCheckTask(new Set(['docker-packages'])).plan(values as never, ctx);
    expect(isPending(ignored) ? 'pending' : ignored.kind).toBe('skip');
    expect(Object.keys(dockerPackagesCheckTask(new Set()).facts(ctx)).sort()).toEqual(['installer:apt-get', 'installer:dnf', 'package:docker.io']);
  });
});
