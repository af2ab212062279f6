// The reads the generic workload's no-op check needs on each host, written by hand as the
// fewest commands that read them: stat and contents of its files, its packages, its units (the
// same properties kcluster asks for), its sysctls. Used as a second floor (ssh-floor.mjs
// --reads) and, command by command, to measure what each costs a host (host-cpu.mjs).
import { workload } from './workload.mjs';

const files = [...workload.files, ...workload.units, ...workload.sysctls.map((s) => ({ path: s.file }))].map((f) => f.path).join(' ');
const proc = workload.sysctls.map((s) => `/proc/sys/${s.key.replaceAll('.', '/')}`).join(' ');

/** Name -> shell command, in the order the script runs them. */
export const readCommands = {
  'stat of the 25 files': `stat -c '%F|%a|%U|%G|%s|%n' -- ${files}`,
  'their contents (cat | base64)': `cat -- ${files} | base64 -w0`,
  'dpkg-query of the 5 packages': `dpkg-query -W -f='\${Package}\\t\${db:Status-Status} \${Version}\\n' -- ${workload.packages.join(' ')}`,
  'systemctl show of the 5 units': `systemctl show --no-pager -p LoadState -p ActiveState -p SubState -p UnitFileState -p FragmentPath -p NeedDaemonReload -- ${workload.units.map((u) => u.name).join(' ')}`,
  'grep of the 5 sysctls': `grep -H '' -- ${proc}`,
};

export const readsScript = Object.values(readCommands).join('\n');
