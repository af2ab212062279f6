// Reading many files' state in one go: per file, the single-file fact spends two processes
// (stat, then base64 or sha256sum); for a batch of N files this script spends three: one
// `stat` for every path, one `cat` of the small regular files piped into one `base64` (cut
// apart on the controller by their stat sizes), and a `sha256sum` only when a large one is
// there. Which files are small is read from the stat output by the shell itself (builtins,
// no process, no byte-by-byte read). Each file then gets exactly the text the single-file
// script would have printed, so one parser serves both.
import type { FactGroup } from '../engine/fact.js';
import { sh, type ShellCommand } from '../ssh/quote.js';

/** Paths the group can carry: absolute, no newline (the script's lists are line-based). */
export const groupablePath = (path: string): boolean => path.startsWith('/') && !path.includes('\n');

/**
 * Sets "$@" to the regular files of the stat output in $kc_stat whose size passes `test` (e.g.
 * -le 100). The lines are peeled off one by one with parameter expansion: builtins only (no
 * `while read` from a here-document, which bash reads one byte per system call), and neither
 * IFS nor the shell's options change, so the script can run in the batch's own shell.
 */
const regularFilesWhere = (test: ShellCommand) => sh`set --
kc_nl='
'
kc_all=$kc_stat
while [ -n "$kc_all" ]; do
  kc_line=\${kc_all%%"$kc_nl"*}
  case $kc_all in *"$kc_nl"*) kc_all=\${kc_all#*"$kc_nl"} ;; *) kc_all= ;; esac
  kc_kind=\${kc_line%%|*}; kc_rest=\${kc_line#*|}; kc_rest=\${kc_rest#*|}; kc_rest=\${kc_rest#*|}; kc_rest=\${kc_rest#*|}
  kc_size=\${kc_rest%%|*}; kc_name=\${kc_rest#*|}
  case $kc_kind in 'regular file'|'regular empty file') if [ "$kc_size" ${test} ]; then set -- "$@" "$kc_name"; fi ;; esac
done`;

function script(max: number) {
  // max < 0: no content wanted, every regular file is summed.
  const small = max < 0 ? sh`-lt 0` : sh`-le ${max}`;
  const large = max < 0 ? sh`-ge 0` : sh`-gt ${max}`;
  return (paths: readonly string[]) => sh`for kc_f in ${paths}; do if [ -e "$kc_f" ] || [ -L "$kc_f" ]; then echo present; else echo absent; fi; done
kc_stat=$(stat -c '%F|%a|%U|%G|%s|%n' -- ${paths} 2>/dev/null)
echo @@stat
if [ -n "$kc_stat" ]; then printf '%s\n' "$kc_stat"; fi
${regularFilesWhere(small)}
echo @@small
if [ $# -gt 0 ]; then printf '%s\n' "$@"; fi
echo @@content
if [ $# -gt 0 ]; then cat -- "$@" 2>/dev/null | base64 -w0; fi
echo
${regularFilesWhere(large)}
echo @@sums
if [ $# -gt 0 ]; then sha256sum -- "$@" 2>/dev/null; fi
true`;
}

function sectionsOf(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  const names = ['stat', 'small', 'content', 'sums'];
  let rest = stdout;
  const head = rest.indexOf('@@stat\n');
  if (head < 0) throw new Error('the file read printed no @@stat marker');
  out.set('present', rest.slice(0, head));
  rest = rest.slice(head);
  names.forEach((name, i) => {
    const open = `@@${name}\n`;
    if (!rest.startsWith(open)) throw new Error(`the file read printed no @@${name} marker`);
    const next = i + 1 < names.length ? rest.indexOf(`\n@@${names[i + 1]}\n`) : -1;
    const end = next < 0 ? rest.length : next + 1;
    out.set(name, rest.slice(open.length, end));
    rest = rest.slice(end);
  });
  return out;
}

const lines = (text: string | undefined): string[] => (text ?? '').split('\n').filter((l) => l.length > 0);

/** Pure: the group script's output in, per path the single-file script's output. */
export function splitFileStates(stdout: string, exitCode: number, paths: readonly string[], max: number): { stdout: string; exitCode: number }[] {
  const s = sectionsOf(stdout);
  const present = lines(s.get('present'));
  if (present.length !== paths.length) throw new Error(`the file read answered for ${present.length} of ${paths.length} paths (exit ${exitCode})`);
  const stats = new Map<string, string>();
  for (const line of lines(s.get('stat'))) {
    const fields = line.split('|');
    stats.set(fields.slice(5).join('|'), fields.slice(0, 5).join('|'));
  }
  const small = lines(s.get('small'));
  const content = Buffer.from((s.get('content') ?? '').trim(), 'base64');
  const contents = new Map<string, Buffer>();
  let offset = 0;
  for (const path of small) {
    const size = Number((stats.get(path) ?? '').split('|')[4]);
    if (!Number.isInteger(size)) throw new Error(`${path}: listed for its content but not stat'ed (did it change during the read?)`);
    contents.set(path, content.subarray(offset, offset + size));
    offset += size;
  }
  if (offset !== content.length)
    throw new Error(`file contents: ${content.length} bytes read, ${offset} expected from the stat sizes (a file changed during the read: run again)`);
  const sums = new Map<string, string>();
  for (const line of lines(s.get('sums'))) {
    // sha256sum starts the line with a backslash when it escaped the name (\\ \n \r).
    const m = /^(\\?)([0-9a-f]{64}) [ *](.*)$/.exec(line);
    if (m) sums.set(m[1] ? m[3]!.replace(/\\([\\nr])/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : '\\')) : m[3]!, m[2]!);
  }
  return paths.map((path, i) => {
    if (present[i] === 'absent') return { stdout: 'absent\n', exitCode: 0 };
    const stat = stats.get(path);
    if (stat === undefined) return { stdout: '', exitCode: 1 };
    const kind = stat.split('|')[0];
    if (kind !== 'regular file' && kind !== 'regular empty file') return { stdout: `${stat}\n`, exitCode: 0 };
    const bytes = contents.get(path);
    if (bytes !== undefined) return { stdout: `${stat}\ncontent\n${bytes.toString('base64')}\n`, exitCode: 0 };
    const sum = sums.get(path);
    if (sum !== undefined) return { stdout: `${stat}\n${sum}\n`, exitCode: 0 };
    // Neither small nor summed: it changed between the reads, or it is unreadable.
    return Number(stat.split('|')[4]) <= max ? { stdout: '', exitCode: 1 } : { stdout: `${stat}\n`, exitCode: 0 };
  });
}

export function fileStateGroup(path: string, max: number): FactGroup | undefined {
  if (!groupablePath(path)) return undefined;
  return { id: `file-read:${max}`, item: path, script: script(max), split: (stdout, code, paths) => splitFileStates(stdout, code, paths, max), inline: true };
}
