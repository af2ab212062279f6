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
  // Stale or missing package lists (a fresh image, an old mirror snapshot): update once, retry.
  installPackages: (names) => {
    const install = sh`DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -- ${names}`;
    return sh`${install} || { apt-get update -qq && ${install}; }`;
  },
};
