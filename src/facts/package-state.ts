// Whether an OS package is installed, asked through the adapter of the host's family (dpkg on
// Debian and kin, rpm on RHEL and kin). The family is decided on the host from
// /etc/os-release in the same snippet, so one package costs no extra round trip.
import type { Fact } from '../engine/fact.js';
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

export function packageState(name: string): Fact<PackageState> {
  return {
    key: `package:${name}`,
    script: perFamilyScript((adapter) => adapter.packageQuery(name)),
    parse: (stdout) => parsePackageState(stdout),
  };
}
