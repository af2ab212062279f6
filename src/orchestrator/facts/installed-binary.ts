// A binary kcluster installed: size, mtime, mode, owner and sha256. Hashing a 100 MB binary on
// every run would make reruns slow, so after installing kcluster records "size mtime sha256"
// in /var/lib/kcluster/artifacts/; when the file's size and mtime still match the record, the
// recorded sha256 is used (the quick check rsync makes), else the host hashes the file again.
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export const ARTIFACT_RECORD_DIR = '/var/lib/kcluster/artifacts';

export interface InstalledBinary {
  readonly exists: boolean;
  /** False when something other than a regular file sits at the path. */
  readonly regular?: boolean;
  readonly size?: number;
  readonly mode?: string;
  readonly owner?: string;
  readonly group?: string;
  readonly sha256?: string;
}

/** Where the record for `path` lives: the path with "/" spelled "_" (paths are absolute). */
export const recordPathFor = (path: string): string => `${ARTIFACT_RECORD_DIR}/${path.replace(/\//g, '_')}.sha256`;

export function parseInstalledBinary(stdout: string): InstalledBinary {
  const line = stdout.trim();
  if (line === 'absent') return { exists: false };
  if (line === 'not-a-file') return { exists: true, regular: false };
  const [size, mode, owner, group, sha256] = line.split('|');
  if (!/^\d+$/.test(size ?? '') || !/^[0-7]{1,4}$/.test(mode ?? '') || !/^[0-9a-f]{64}$/.test(sha256 ?? '')) {
    throw new Error(`unexpected binary state "${line.slice(0, 120)}"`);
  }
  return { exists: true, regular: true, size: Number(size), mode: mode!.padStart(4, '0'), owner: owner!, group: group!, sha256: sha256! };
}

export function installedBinary(path: string): Fact<InstalledBinary> {
  return {
    key: `binary:${path}`,
    become: true,
    script: sh`p=${path}; r=${recordPathFor(path)}
if [ ! -e "$p" ] && [ ! -L "$p" ]; then echo absent; exit 0; fi
if [ -L "$p" ] || [ ! -f "$p" ]; then echo not-a-file; exit 0; fi
set -- $(stat -c '%s %Y %a %U %G' -- "$p") || exit 1
rec=$(cat -- "$r" 2>/dev/null || true)
case "$rec" in
  "$1 $2 "*) sum=\${rec##* } ;;
  *) sum=$(sha256sum < "$p") || exit 1; sum=\${sum%% *} ;;
esac
echo "$1|$3|$4|$5|$sum"`,
    parse: parseInstalledBinary,
  };
}
