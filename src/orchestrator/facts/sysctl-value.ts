// A kernel parameter's live value, read from /proc/sys. Several in one batch are read by one
// `grep -H` (each line prefixed with its file), after a shell-builtin check of which exist.
import { sh } from '../ssh/quote.js';
import type { Fact, FactGroup } from '../engine/fact.js';

export interface SysctlValue {
  readonly present: boolean;
  readonly value?: string;
}

export function sysctlPath(key: string): string {
  if (!/^[a-z0-9_.\-/]+$/i.test(key) || key.includes('..')) throw new Error(`invalid sysctl key "${key}"`);
  return `/proc/sys/${key.replace(/\./g, '/')}`;
}

// Not the shell's own `read`: dash reads one byte per call, and /proc/sys answers a read at a
// non-zero offset of a number vector with end of file (net.ipv4.ip_local_port_range read "3").
const readAll = (paths: readonly string[]) => sh`for kc_p in ${paths}; do if [ -r "$kc_p" ]; then echo "present $kc_p"; else echo "absent $kc_p"; fi; done
echo @@values
grep -H '' -- ${paths} 2>/dev/null; true`;

/** Pure: the group script's output in, per path what the single read prints ("present" + value lines, or "absent"). */
export function splitSysctlValues(stdout: string, _exitCode: number, paths: readonly string[]): { stdout: string; exitCode: number }[] {
  const marker = stdout.indexOf('@@values\n');
  if (marker < 0) throw new Error('the sysctl read printed no values marker');
  const states = new Map(
    stdout
      .slice(0, marker)
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(l.indexOf(' ') + 1), l.slice(0, l.indexOf(' '))]),
  );
  const lines = new Map<string, string[]>();
  for (const line of stdout.slice(marker + '@@values\n'.length).split('\n')) {
    const path = paths.find((p) => line.startsWith(`${p}:`));
    if (path !== undefined) lines.set(path, [...(lines.get(path) ?? []), line.slice(path.length + 1)]);
  }
  return paths.map((p) => {
    if (states.get(p) !== 'present') return { stdout: 'absent\n', exitCode: 0 };
    return { stdout: `present\n${(lines.get(p) ?? []).join('\n')}\n`, exitCode: 0 };
  });
}

const sysctlGroup = (path: string): FactGroup => ({ id: 'sysctl-read', item: path, script: readAll, split: splitSysctlValues, inline: true });

export function sysctlValue(key: string): Fact<SysctlValue> {
  return {
    key: `sysctl:${key}`,
    script: sh`if [ -r ${sysctlPath(key)} ]; then echo present; cat ${sysctlPath(key)}; else echo absent; fi`,
    group: sysctlGroup(sysctlPath(key)),
    parse(stdout) {
      const [state, ...rest] = stdout.split('\n');
      if (state === 'absent') return { present: false };
      return { present: true, value: rest.join('\n').trim().replace(/\s+/g, ' ') };
    },
  };
}
