// A kernel parameter's live value, read from /proc/sys.
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface SysctlValue {
  readonly present: boolean;
  readonly value?: string;
}

export function sysctlPath(key: string): string {
  if (!/^[a-z0-9_.\-/]+$/i.test(key) || key.includes('..')) throw new Error(`invalid sysctl key "${key}"`);
  return `/proc/sys/${key.replace(/\./g, '/')}`;
}

export function sysctlValue(key: string): Fact<SysctlValue> {
  return {
    key: `sysctl:${key}`,
    script: sh`if [ -r ${sysctlPath(key)} ]; then echo present; cat ${sysctlPath(key)}; else echo absent; fi`,
    parse(stdout) {
      const [state, ...rest] = stdout.split('\n');
      if (state === 'absent') return { present: false };
      return { present: true, value: rest.join('\n').trim().replace(/\s+/g, ' ') };
    },
  };
}
