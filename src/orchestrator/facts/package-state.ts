// Whether an OS package is installed, asked through the adapter of the host's family (dpkg on
// Debian and kin, rpm on RHEL and kin). The family is decided on the host from
// /etc/os-release in the same snippet, so one package costs no extra round trip. Package facts
// of one batch are read as a group: one os-release read and, on Debian, one dpkg-query for all
// (each dpkg-query parses the whole status database: about 6 ms of host CPU apiece).
import type { Fact, FactGroup } from '../engine/fact.js';
import { adapterForFamily, UnsupportedOsError } from '../os/choose-adapter.js';
import { parsePerFamilyOutput, perFamilyScript } from '../os/family-script.js';
import type { OsFamily } from '../os/os-adapter.js';

export interface PackageState {
  readonly installed: boolean;
  readonly version?: string;
  /** The family whose adapter answered: tasks install through the same adapter. */
  readonly family: OsFamily;
}

export function parsePackageState(stdout: string): PackageState {
  const out = parsePerFamilyOutput(stdout);
  if (!out.family) throw new UnsupportedOsError(out);
  const result = adapterForFamily(out.family).parsePackageQuery(out.rest);
  return { ...result, family: out.family };
}

/** Names the group can carry: plain package names (no pattern, no ":arch"); others read alone. */
export const groupablePackageName = (name: string): boolean => /^[A-Za-z0-9][A-Za-z0-9+._-]*$/.test(name);

/** Pure: the group script's output in, per name what the package's own script prints. */
export function splitPackageStates(stdout: string, exitCode: number, names: readonly string[]): { stdout: string; exitCode: number }[] {
  const out = parsePerFamilyOutput(stdout);
  const header = `${stdout.split('\n').slice(0, 3).join('\n')}\n`;
  if (!out.family) return names.map(() => ({ stdout: header, exitCode }));
  return adapterForFamily(out.family)
    .splitPackagesQuery(out.rest, names)
    .map((rest) => ({ stdout: header + rest, exitCode }));
}

const packageGroup = (name: string): FactGroup => ({
  id: 'package-query',
  item: name,
  script: (names) => perFamilyScript((adapter) => adapter.packagesQuery(names)),
  split: splitPackageStates,
  inline: true,
});

export function packageState(name: string): Fact<PackageState> {
  return {
    key: `package:${name}`,
    script: perFamilyScript((adapter) => adapter.packageQuery(name)),
    parse: (stdout) => parsePackageState(stdout),
    ...(groupablePackageName(name) ? { group: packageGroup(name) } : {}),
  };
}
