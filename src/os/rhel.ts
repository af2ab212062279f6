// Fedora, RHEL and their rebuilds: rpm's database, dnf to install.
import { sh } from '../ssh/quote.js';
import type { OsAdapter } from './os-adapter.js';

export const rhelAdapter: OsAdapter = {
  family: 'rhel',
  ids: ['rhel', 'fedora', 'centos', 'rocky', 'almalinux', 'ol', 'amzn'],
  // rpm prints "package X is not installed" on stdout and exits 1 for a missing package.
  packageQuery: (name) => sh`rpm -q --qf 'installed %{VERSION}-%{RELEASE}\\n' -- ${name} 2>/dev/null || echo not-installed`,
  parsePackageQuery(stdout) {
    const line = stdout.trim().split('\n').find((l) => l.startsWith('installed ')) ?? '';
    const version = line.slice('installed '.length).trim();
    return version ? { installed: true, version } : { installed: false };
  },
  installPackages: (names) => sh`dnf install -y -- ${names}`,
};
