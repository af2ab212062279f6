// Where an executable is on the host, or null. Searches $PATH plus the sbin folders a
// non-root SSH session often lacks, and ignores shell builtins (`command -v test` says "test").
import { sh, shellRaw } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

const EXTRA_DIRS = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function commandPath(name: string): Fact<string | null> {
  if (name === '' || name.includes('/')) throw new Error(`commandPath wants a command name without "/", got "${name}"`);
  return {
    key: `command:${name}`,
    script: sh`n=${name}; IFS=:; set -f
for d in $PATH:${shellRaw(EXTRA_DIRS)}; do
  if [ -n "$d" ] && [ -f "$d/$n" ] && [ -x "$d/$n" ]; then printf '%s\\n' "$d/$n"; exit 0; fi
done
echo '-'`,
    parse(stdout) {
      const line = stdout.split('\n')[0] ?? '';
      if (line === '-') return null;
      if (!line.startsWith('/')) throw new Error(`unexpected output: "${line.slice(0, 80)}"`);
      return line;
    },
  };
}
