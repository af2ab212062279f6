// OS packages that must be installed. With install: false a missing package fails the host
// with the command to install it (preflight style); with install: true it is installed.
import { noChange, type Change } from '../engine/change.js';
import type { FactMap } from '../engine/fact.js';
import type { Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { packageState, type PackageState } from '../facts/package-state.js';
import { installPackagesCommand, type PackageManager } from '../os/package-manager.js';

export interface PackagesOptions {
  readonly names: readonly string[];
  readonly install: boolean;
  readonly tags?: readonly string[];
}

interface Payload {
  readonly missing: readonly string[];
  readonly manager: PackageManager | 'none';
}

export function planPackages(options: PackagesOptions, states: Readonly<Record<string, PackageState>>): Change<Payload> {
  const missing = options.names.filter((n) => !states[n]?.installed);
  if (missing.length === 0) return noChange(`installed: ${options.names.map((n) => `${n} ${states[n]?.version ?? ''}`.trim()).join(', ')}`);
  const manager = Object.values(states)[0]?.manager ?? 'none';
  return { kind: 'run', summary: `install ${missing.join(', ')}`, payload: { missing, manager } };
}

export function packagesPresent(options: PackagesOptions): Task<FactMap, Payload> {
  return {
    name: `packages ${options.names.join(', ')} present`,
    ...(options.tags ? { tags: options.tags } : {}),
    facts: () => Object.fromEntries(options.names.map((n) => [n, packageState(n)])),
    plan: (facts) => planPackages(options, facts as Record<string, PackageState>),
    apply: async (change, ctx) => {
      const { missing, manager } = change.payload;
      if (manager === 'none') throw new Error(`${missing.join(', ')} missing and no dpkg or rpm on this host: install them by hand`);
      const command = installPackagesCommand(manager, missing);
      if (!options.install) throw new Error(`${missing.join(', ')} not installed: install with \`${command.text}\``);
      await execChecked(ctx.connection, command, { become: true, label: `install ${missing.join(' ')}`, timeoutMs: 600_000 });
    },
  };
}
