// Fedora, RHEL and their rebuilds: rpm's database, dnf to install.
import { sh } from '../ssh/quote.js';
import type { OsAdapter } from './os-adapter.js';

const PACKAGE_MARKER = '@@kcluster-package';

export const rhelAdapter: OsAdapter = {
  family: 'rhel',
  ids: ['rhel', 'fedora', 'centos', 'rocky', 'almalinux', 'ol', 'amzn'],
  // rpm prints "package X is not installed" on stdout and exits 1 for a missing package.
  packageQuery: (name) => sh`rpm -q --qf 'installed %{VERSION}-%{RELEASE}\\n' -- ${name} 2>/dev/null || echo not-installed`,
  parsePackageQuery(stdout) {
    const line =
      stdout
        .trim()
        .split('\n')
        .find((l) => l.startsWith('installed ')) ?? '';
    const version = line.slice('installed '.length).trim();
    return version ? { installed: true, version } : { installed: false };
  },
  // rpm cannot tell which of its output lines answers which argument when one name matches
  // several packages (kernel), so each name keeps its own query, behind a marker.
  packagesQuery: (names) =>
    sh`for kc_p in ${names}; do echo ${PACKAGE_MARKER}; rpm -q --qf 'installed %{VERSION}-%{RELEASE}\\n' -- "$kc_p" 2>/dev/null || echo not-installed; done`,
  splitPackagesQuery(stdout, names) {
    const answers = stdout.split(`${PACKAGE_MARKER}\n`).slice(1);
    if (answers.length !== names.length) throw new Error(`the package query answered for ${answers.length} of ${names.length} packages`);
    return answers;
  },
  installer: 'dnf',
  installPackages: (names) => sh`dnf install -y -- ${names}`,
};
