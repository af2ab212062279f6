// Picks the OS adapter from /etc/os-release: the ID first, then each ID_LIKE word in order
// (so "rocky" with ID_LIKE="rhel centos fedora" is rhel, "ubuntu" is debian).
import { debianAdapter } from './debian.js';
import type { OsAdapter, OsFamily } from './os-adapter.js';
import type { OsRelease } from './os-release.js';
import { rhelAdapter } from './rhel.js';

export const OS_ADAPTERS: readonly OsAdapter[] = [debianAdapter, rhelAdapter];

export class UnsupportedOsError extends Error {
  constructor(readonly release: Pick<OsRelease, 'id' | 'idLike'>) {
    super(
      `unsupported OS: /etc/os-release has ID=${release.id}` +
        (release.idLike.length > 0 ? ` ID_LIKE="${release.idLike.join(' ')}"` : '') +
        `; kcluster knows the ${OS_ADAPTERS.map((a) => a.family).join(' and ')} families (${OS_ADAPTERS.flatMap((a) => a.ids).join(', ')})`,
    );
    this.name = 'UnsupportedOsError';
  }
}

/** The family of a release, or undefined when no adapter claims it. */
export function osFamilyOf(release: Pick<OsRelease, 'id' | 'idLike'>): OsFamily | undefined {
  for (const word of [release.id, ...release.idLike]) {
    const adapter = OS_ADAPTERS.find((a) => a.ids.includes(word));
    if (adapter) return adapter.family;
  }
  return undefined;
}

/** The adapter for a release; throws UnsupportedOsError naming the ID found. */
export function adapterFor(release: Pick<OsRelease, 'id' | 'idLike'>): OsAdapter {
  const family = osFamilyOf(release);
  if (!family) throw new UnsupportedOsError(release);
  return adapterForFamily(family);
}

export function adapterForFamily(family: OsFamily): OsAdapter {
  const adapter = OS_ADAPTERS.find((a) => a.family === family);
  if (!adapter) throw new Error(`no OS adapter for the ${family} family`);
  return adapter;
}
