// A remote file's state: existence, type, mode, owner, size, sha256, and (for small text
// files, when asked) its content, so plans can show a diff without another round trip.
import { createHash } from 'node:crypto';
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';

export interface FileState {
  readonly exists: boolean;
  readonly type?: 'file' | 'directory' | 'symlink' | 'other';
  readonly mode?: string;
  readonly owner?: string;
  readonly group?: string;
  readonly size?: number;
  readonly sha256?: string;
  /** Present when asked for, the file is a regular file under the size cap. */
  readonly content?: Buffer;
}

const DEFAULT_MAX_CONTENT = 256 * 1024;

export function fileState(path: string, options: { content?: boolean; maxContentBytes?: number } = {}): Fact<FileState> {
  const max = options.content ? (options.maxContentBytes ?? DEFAULT_MAX_CONTENT) : -1;
  return {
    key: options.content ? `file:${path}` : `file-meta:${path}`,
    become: true,
    // One stat line; then either the content (small files, when asked: its sha256 is computed
    // here, saving a process per file on the host) or the sha256 from sha256sum.
    script: sh`f=${path}
if [ ! -e "$f" ] && [ ! -L "$f" ]; then echo absent; exit 0; fi
s=$(stat -c '%F|%a|%U|%G|%s' -- "$f") || exit 1
echo "$s"
if [ -f "$f" ] && [ ! -L "$f" ]; then
  if [ "\${s##*|}" -le ${max} ]; then echo content; base64 -w0 -- "$f"; echo; else sha256sum < "$f"; fi
fi`,
    parse(stdout) {
      const lines = stdout.split('\n');
      if (lines[0] === 'absent') return { exists: false };
      const [kind = '', mode = '', owner = '', group = '', size = '0'] = (lines[0] ?? '').split('|');
      const type = kind === 'regular file' || kind === 'regular empty file' ? 'file' : kind === 'directory' ? 'directory' : kind === 'symbolic link' ? 'symlink' : 'other';
      if (!/^[0-7]{3,4}$/.test(mode)) throw new Error(`unexpected stat output: ${lines[0] ?? ''}`);
      const content = lines[1] === 'content' ? Buffer.from(lines[2] ?? '', 'base64') : undefined;
      const summed = lines[1]?.slice(0, 64);
      const sha256 = content ? createHash('sha256').update(content).digest('hex') : summed && /^[0-9a-f]{64}$/.test(summed) ? summed : undefined;
      return {
        exists: true,
        type,
        mode: mode.padStart(4, '0'),
        owner,
        group,
        size: Number(size),
        ...(sha256 ? { sha256 } : {}),
        ...(content ? { content } : {}),
      };
    },
  };
}
