// Debian, Ubuntu and their derivatives: dpkg's database, apt-get to install.
import { sh } from '../ssh/quote.js';
import type { OsAdapter } from './os-adapter.js';

export const debianAdapter: OsAdapter = {
  family: 'debian',
  ids: ['debian', 'ubuntu', 'raspbian', 'linuxmint', 'pop', 'elementary', 'kali', 'devuan'],
  // dpkg-query fails for a name it never heard of: that is "not installed", not an error.
  packageQuery: (name) => sh`dpkg-query -W -f='\${db:Status-Status} \${Version}\\n' -- ${name} 2>/dev/null || echo not-installed`,
  parsePackageQuery(stdout) {
    const [status, version] = (stdout.trim().split('\n')[0] ?? '').split(' ');
    return status === 'installed' && version ? { installed: true, version } : { installed: false };
  },
  // One dpkg-query for every name, each line tagged with its package (several lines for a
  // package installed for several architectures, as the single query prints).
  packagesQuery: (names) => sh`dpkg-query -W -f='\${Package}\\t\${db:Status-Status} \${Version}\\n' -- ${names} 2>/dev/null; true`,
  splitPackagesQuery(stdout, names) {
    const lines = new Map<string, string[]>();
    for (const line of stdout.split('\n')) {
      const tab = line.indexOf('\t');
      if (tab <= 0) continue;
      const name = line.slice(0, tab);
      lines.set(name, [...(lines.get(name) ?? []), line.slice(tab + 1)]);
    }
    return names.map((name) => `${(lines.get(name) ?? ['not-installed']).join('\n')}\n`);
  },
  installer: 'apt-get',
  // Stale or missing package lists (a fresh image, an old mirror snapshot): update once, retry.
  installPackages: (names) => {
    const install = sh`DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- ${names}`;
    return sh`${install} || { apt-get update -qq && ${install}; }`;
  },
};
