// OS packages that must be installed, checked through the host family's adapter. With
// install: false a missing package fails the host with the command to install it
// (preflight style); with install: true the adapter installs it.
import { noChange, type Change } from '../engine/change.js';
import type { FactMap } from '../engine/fact.js';
import type { HostContext, Task } from '../engine/types.js';
import { execChecked } from '../ssh/connection.js';
import { packageState, type PackageState } from '../facts/package-state.js';
import { adapterForFamily } from '../os/choose-adapter.js';
import type { OsFamily } from '../os/os-adapter.js';

export interface PackagePresentOptions {
  /** The packages, or a function of the host (names from its vars). */
  readonly names: readonly string[] | ((ctx: HostContext) => readonly string[]);
  /** false: only check, and fail with the install command when something is missing. */
  readonly install: boolean;
  readonly name?: string;
  readonly tags?: readonly string[];
}

export interface PackagePayload {
  readonly missing: readonly string[];
  readonly family: OsFamily;
}

/** Pure: each package's state in, the Change out. */
export function planPackages(options: { names: readonly string[]; install: boolean }, states: Readonly<Record<string, PackageState>>): Change<PackagePayload> {
  const missing = options.names.filter((n) => !states[n]?.installed);
  if (missing.length === 0) {
    return noChange(`installed: ${options.names.map((n) => `${n} ${states[n]?.version ?? ''}`.trim()).join(', ')}`);
  }
  const family = states[missing[0]!]?.family;
  if (!family) throw new Error(`no package state for ${missing[0]!}`);
  const command = adapterForFamily(family).installPackages(missing).text;
  return {
    kind: 'run',
    summary: options.install ? `install ${missing.join(', ')}` : `install ${missing.join(', ')} (not allowed here: run \`${command}\` as root)`,
    payload: { missing, family },
  };
}

export function packagePresent(options: PackagePresentOptions): Task<FactMap, PackagePayload> {
  const namesFor = (ctx: HostContext): readonly string[] => (typeof options.names === 'function' ? options.names(ctx) : options.names);
  return {
    name: options.name ?? (typeof options.names === 'function' ? 'packages present' : `packages ${options.names.join(', ')} present`),
    ...(options.tags ? { tags: options.tags } : {}),
    facts: (ctx) => Object.fromEntries(namesFor(ctx).map((n) => [n, packageState(n)])),
    plan: (facts, ctx) => planPackages({ names: namesFor(ctx), install: options.install }, facts as Readonly<Record<string, PackageState>>),
    apply: async (change, ctx) => {
      const { missing, family } = change.payload;
      const command = adapterForFamily(family).installPackages(missing);
      const list = missing.join(', ');
      if (!options.install)
        throw new Error(
          `${list} ${missing.length > 1 ? 'are' : 'is'} not installed: install ${missing.length > 1 ? 'them' : 'it'} with \`${command.text}\` (as root)`,
        );
      await execChecked(ctx.connection, command, { become: true, label: `install ${missing.join(' ')}`, timeoutMs: 600_000 });
    },
  };
}

/** Older name of packagePresent, kept for playbooks written against it. */
export const packagesPresent = packagePresent;
