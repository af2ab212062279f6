// Whether an OS package is installed, through the host's package database (dpkg or rpm:
// the adapter for the host's distro family, see src/os/).
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface PackageState {
  readonly installed: boolean;
  readonly version?: string;
  readonly manager: 'dpkg' | 'rpm' | 'none';
}

export function packageState(name: string): Fact<PackageState> {
  return {
    key: `package:${name}`,
    script: sh`if command -v dpkg-query >/dev/null 2>&1; then
  echo dpkg; dpkg-query -W -f='\${db:Status-Status} \${Version}\\n' -- ${name} 2>/dev/null || true
elif command -v rpm >/dev/null 2>&1; then
  echo rpm; rpm -q --qf 'installed %{VERSION}-%{RELEASE}\\n' -- ${name} 2>/dev/null || true
else echo none; fi`,
    parse(stdout) {
      const [manager = 'none', line = ''] = stdout.split('\n');
      if (manager !== 'dpkg' && manager !== 'rpm') return { installed: false, manager: 'none' };
      const [status, version] = line.trim().split(' ');
      return status === 'installed' && version ? { installed: true, version, manager } : { installed: false, manager };
    },
  };
}
