// A remote file's state: existence, type, mode, owner, size, sha256 and, when asked, its
// content as text (small text files only), so a plan can show a diff without another round
// trip. Content travels base64-encoded so any byte survives; its sha256 is computed here on
// the controller, which saves the host a process per file.
import { createHash } from 'node:crypto';
import { sh } from '../ssh/quote.js';
import type { Fact } from '../engine/fact.js';
import { fileStateGroup } from './file-state-group.js';

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileState {
  readonly exists: boolean;
  readonly type?: FileType;
  /** Octal permission bits, 4 digits: "0644". */
  readonly mode?: string;
  readonly owner?: string;
  readonly group?: string;
  readonly size?: number;
  /** Regular files only. */
  readonly sha256?: string;
  /** When asked for, and the file is regular, under the size cap and valid UTF-8 without NUL. */
  readonly content?: string;
}

export interface FileStateOptions {
  readonly content: boolean;
  /** Files larger than this come without content (default 256 KiB). */
  readonly maxContentBytes?: number;
}

export const DEFAULT_MAX_CONTENT_BYTES = 256 * 1024;

/** Text means: decodes as UTF-8 and back to the same bytes, with no NUL. */
export function bytesAsText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

function fileType(statKind: string): FileType {
  if (statKind === 'regular file' || statKind === 'regular empty file') return 'file';
  if (statKind === 'directory') return 'directory';
  if (statKind === 'symbolic link') return 'symlink';
  return 'other';
}

// The bytes a read fetched, by the state parsed from them: comparing them with the desired
// bytes costs less than two sha256s, and a converged run compares every managed file.
const fetched = new WeakMap<FileState, Buffer>();

/** The file's bytes when they came with its state (small regular files read with content). */
export function fetchedBytes(state: FileState): Buffer | undefined {
  return fetched.get(state);
}

/** Pure: the snippet's stdout in, the file's state out. */
export function parseFileState(stdout: string, exitCode = 0): FileState {
  const lines = stdout.split('\n');
  if (lines[0] === 'absent') return { exists: false };
  if (exitCode !== 0) throw new Error(`stat failed (exit ${exitCode})`);
  const fields = (lines[0] ?? '').split('|');
  // The owner or group may be a bare uid/gid; names never hold "|".
  const [kind = '', mode = '', owner = '', group = '', size = ''] = fields;
  if (fields.length !== 5 || !/^[0-7]{1,4}$/.test(mode) || !/^[0-9]+$/.test(size)) {
    throw new Error(`unexpected stat output: "${(lines[0] ?? '').slice(0, 120)}"`);
  }
  const base = { exists: true, type: fileType(kind), mode: mode.padStart(4, '0'), owner, group, size: Number(size) };
  if (lines[1] === 'content') {
    const bytes = Buffer.from(lines[2] ?? '', 'base64');
    if (bytes.length !== base.size) throw new Error(`content of ${base.size} bytes announced, ${bytes.length} received`);
    const text = bytesAsText(bytes);
    let sha256: string | undefined;
    const state: FileState = {
      ...base,
      // Hashed when first read, once: a plan compares the bytes themselves (fetchedBytes).
      get sha256(): string {
        return (sha256 ??= createHash('sha256').update(bytes).digest('hex'));
      },
      ...(text !== undefined ? { content: text } : {}),
    };
    fetched.set(state, bytes);
    return state;
  }
  const summed = (lines[1] ?? '').slice(0, 64);
  return /^[0-9a-f]{64}$/.test(summed) ? { ...base, sha256: summed } : base;
}

/**
 * Key `file:<path>` when content is asked with the default cap (what file tasks use), else
 * `file:<path>#meta` or `file:<path>#max=<n>`: different reads, different cache entries.
 * A task that writes <path> invalidates `file:<path>` and `file:<path>#*`.
 */
export function fileState(path: string, options: FileStateOptions = { content: false }): Fact<FileState> {
  const max = options.content ? (options.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES) : -1;
  const key = !options.content ? `file:${path}#meta` : max === DEFAULT_MAX_CONTENT_BYTES ? `file:${path}` : `file:${path}#max=${max}`;
  const group = fileStateGroup(path, max);
  return {
    key,
    become: true,
    // One stat line; then the content (small files, when asked) or the sha256 from
    // sha256sum reading stdin, so an odd file name cannot garble its output.
    script: sh`f=${path}
if [ ! -e "$f" ] && [ ! -L "$f" ]; then echo absent; exit 0; fi
s=$(stat -c '%F|%a|%U|%G|%s' -- "$f") || exit 1
printf '%s\\n' "$s"
if [ -f "$f" ] && [ ! -L "$f" ]; then
  if [ "\${s##*|}" -le ${max} ]; then echo content; base64 -w0 < "$f" || exit 1; echo; else sha256sum < "$f" || exit 1; fi
fi`,
    parse: parseFileState,
    ...(group ? { group } : {}),
  };
}

/** The fact keys a task writing `path` makes stale. */
export function fileStateKeys(path: string): string[] {
  return [`file:${path}`, `file:${path}#*`];
}
