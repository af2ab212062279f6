// Package installation per package manager family (dpkg/apt on Debian and Ubuntu, rpm/dnf on
// Fedora, RHEL and their kin). Tasks ask this adapter instead of branching on a distro.
import { sh, type ShellCommand } from '../ssh/quote.js';

export type PackageManager = 'dpkg' | 'rpm';

export function installPackagesCommand(manager: PackageManager, names: readonly string[]): ShellCommand {
  return manager === 'dpkg'
    ? sh`DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- ${names}`
    : sh`dnf install -y -- ${names}`;
}
