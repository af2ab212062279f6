// Preflight for `containerRuntime: docker`: Docker Engine comes from the host's OS packages
// (`dockerPackages`), not from the bundle, so a host that lacks them must have its package
// manager. Without this check such a host (a minimal image, apt removed by policy) passes
// preflight and fails half-way, in the docker role, on "apt-get: not found".
import { dockerPackagesOf } from '../../src/kubernetes/cluster/node-vars.js';
import type { FactMap } from '../../src/orchestrator/engine/fact.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { commandPath } from '../../src/orchestrator/facts/command-path.js';
import { packageState, type PackageState } from '../../src/orchestrator/facts/package-state.js';
import { adapterForFamily, OS_ADAPTERS } from '../../src/orchestrator/os/choose-adapter.js';
import { checkOutcome, type CheckResult } from './checks.js';

export const DOCKER_PACKAGES_CHECK = 'docker-packages';

export interface DockerPackagesFacts {
  /** Per package of `dockerPackages`, its state in the host's package database. */
  readonly packages: Readonly<Record<string, PackageState>>;
  /** Per installer command of a known OS family (apt-get, dnf), its path on the host or null. */
  readonly installers: Readonly<Record<string, string | null>>;
}

/** Pure: whether the docker role can have its packages on this host. */
export function dockerPackagesProblem(packages: readonly string[], facts: DockerPackagesFacts): CheckResult {
  const missing = packages.filter((name) => !facts.packages[name]?.installed);
  if (missing.length === 0) return { ok: true, note: `installed: ${packages.join(', ')}` };
  const family = facts.packages[missing[0]!]?.family;
  if (family === undefined) throw new Error(`no package state for ${missing[0]!}`);
  const adapter = adapterForFamily(family);
  if (facts.installers[adapter.installer]) return { ok: true, note: `${missing.join(', ')} to be installed with ${adapter.installer} by the docker role` };
  return {
    ok: false,
    problem:
      `containerRuntime docker needs the OS packages ${missing.join(', ')} (dockerPackages), which the bundle does not carry, and this host has no ${adapter.installer} to install them: ` +
      `install them before kcluster runs (\`${adapter.installPackages(missing).text}\` where the package manager works), ` +
      `or use containerRuntime: containerd, which installs from the bundle alone`,
  };
}

export function dockerPackagesCheckTask(ignored: ReadonlySet<string>): Task<FactMap, null> {
  const installerKey = (command: string): string => `installer:${command}`;
  const packageKey = (name: string): string => `package:${name}`;
  return {
    name: `preflight ${DOCKER_PACKAGES_CHECK}`,
    tags: ['preflight'],
    facts: (ctx): FactMap =>
      Object.fromEntries([
        ...dockerPackagesOf(ctx).map((name) => [packageKey(name), packageState(name)] as const),
        ...OS_ADAPTERS.map((a) => [installerKey(a.installer), commandPath(a.installer)] as const),
      ]),
    plan: (facts, ctx) => {
      const values = facts as Readonly<Record<string, unknown>>;
      const packages = dockerPackagesOf(ctx);
      const found: DockerPackagesFacts = {
        packages: Object.fromEntries(packages.map((name) => [name, values[packageKey(name)] as PackageState])),
        installers: Object.fromEntries(OS_ADAPTERS.map((a) => [a.installer, values[installerKey(a.installer)] as string | null])),
      };
      return checkOutcome(DOCKER_PACKAGES_CHECK, dockerPackagesProblem(packages, found), ignored);
    },
    apply: async () => {},
  };
}
