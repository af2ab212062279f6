// Shell text that decides a host's OS family on the host itself, from /etc/os-release and
// the same adapter table as `osFamilyOf`, so a fact can run exactly one adapter's query in the
// same round trip. Sets $kc_id, $kc_like and $kc_family ("" when no adapter claims the host).
import { quoteWord, sh, shellJoin, shellRaw, type ShellCommand } from '../ssh/quote.js';
import { OS_ADAPTERS } from './choose-adapter.js';
import type { OsAdapter, OsFamily } from './os-adapter.js';

// A `read` loop rather than sourcing the file or starting grep: no process, no side effects.
const readOsRelease = (files: readonly string[]): string => `kc_id=; kc_like=
for kc_f in ${files.map(quoteWord).join(' ')}; do
  [ -r "$kc_f" ] || continue
  while IFS='=' read -r kc_k kc_v || [ -n "$kc_k" ]; do
    kc_v=\${kc_v#[\\"\\']}; kc_v=\${kc_v%[\\"\\']}
    case $kc_k in ID) kc_id=$kc_v ;; ID_LIKE) kc_like=$kc_v ;; esac
  done < "$kc_f"
  break
done
kc_family=
for kc_w in $kc_id $kc_like; do
  case $kc_w in
`;

export const OS_RELEASE_FILES: readonly string[] = ['/etc/os-release', '/usr/lib/os-release'];

/** `files` is for tests: where to look for os-release, first readable wins. */
export function osFamilyScript(files: readonly string[] = OS_RELEASE_FILES): ShellCommand {
  const cases = OS_ADAPTERS.map((a) => `    ${a.ids.map(quoteWord).join('|')}) kc_family=${a.family}; break ;;`).join('\n');
  return shellRaw(`${readOsRelease(files)}${cases}\n  esac\ndone`);
}

/**
 * Prints "family=<f>", "id=<ID>", "like=<ID_LIKE>" lines, then the output of the command
 * `perFamily` builds for the host's family (nothing when the family is unknown).
 */
export function perFamilyScript(perFamily: (adapter: OsAdapter) => ShellCommand, files: readonly string[] = OS_RELEASE_FILES): ShellCommand {
  const branches = shellJoin(
    OS_ADAPTERS.map((a) => sh`  ${shellRaw(a.family)}) ${perFamily(a)} ;;`),
    '\n',
  );
  return sh`${osFamilyScript(files)}
printf 'family=%s\\nid=%s\\nlike=%s\\n' "$kc_family" "$kc_id" "$kc_like"
case $kc_family in
${branches}
esac`;
}

export interface FamilyOutput {
  readonly family: OsFamily | undefined;
  readonly id: string;
  readonly idLike: readonly string[];
  /** What the family's command printed. */
  readonly rest: string;
}

export function parsePerFamilyOutput(stdout: string): FamilyOutput {
  const lines = stdout.split('\n');
  const field = (i: number, name: string): string => {
    const line = lines[i] ?? '';
    if (!line.startsWith(`${name}=`)) throw new Error(`expected "${name}=" on line ${i + 1}, got "${line.slice(0, 80)}"`);
    return line.slice(name.length + 1);
  };
  const family = field(0, 'family');
  const known = OS_ADAPTERS.find((a) => a.family === family)?.family;
  return {
    family: known,
    id: field(1, 'id').toLowerCase() || 'linux',
    idLike: field(2, 'like').toLowerCase().split(/\s+/).filter(Boolean),
    rest: lines.slice(3).join('\n'),
  };
}
