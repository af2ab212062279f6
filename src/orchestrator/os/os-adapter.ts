// What a task may ask about a host's OS. One implementation per distro family: a task asks
// the adapter and never branches on a distro name.
import type { ShellCommand } from '../ssh/quote.js';

export type OsFamily = 'debian' | 'rhel';

export interface PackageQueryResult {
  readonly installed: boolean;
  readonly version?: string;
}

export interface OsAdapter {
  readonly family: OsFamily;
  /** os-release ID or ID_LIKE words that belong to this family. */
  readonly ids: readonly string[];
  /** Prints one package's state; exits 0 whether or not it is installed. */
  packageQuery(name: string): ShellCommand;
  parsePackageQuery(stdout: string): PackageQueryResult;
  /**
   * Prints the state of every package in `names` (plain names: no pattern, no architecture)
   * with as few processes as the package manager allows: the group read of package facts.
   * It runs in the fact batch's own shell (FactGroup.inline): no `exit`, variables named kc_*.
   */
  packagesQuery(names: readonly string[]): ShellCommand;
  /** Pure: packagesQuery's output in, per name (same order) what packageQuery(name) prints. */
  splitPackagesQuery(stdout: string, names: readonly string[]): string[];
  /** Installs packages without prompting (run as root). */
  installPackages(names: readonly string[]): ShellCommand;
  /** The command installPackages runs: a host without it cannot install OS packages. */
  readonly installer: string;
}
