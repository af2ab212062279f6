// One command that writes stdin to a file atomically and only whole: a temp file in the same
// directory gets the content (umask 077: never readable by others half-written); the host
// checks its size and sha256 against what the controller sent before it sets mode and owner,
// flushes it and renames it over the target. A cut link, Ctrl-C or a killed controller ends
// `cat` with a short file that fails the check: the temp file is removed and the old file
// stays as it was. Before the rename the command also writes to its own stdout, so a writer
// whose session is gone (sshd closed its pipes) dies of SIGPIPE instead of renaming later.
import type { WriteFileOptions } from './connection.js';
import { sh, shellRaw, type ShellCommand } from './quote.js';

/** What the host must have received before the temp file may replace the target. */
export interface ExpectedContent {
  readonly size: number;
  /** Lower-case hex. */
  readonly sha256: string;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function ownerSpec(options: WriteFileOptions): string | undefined {
  if (options.owner !== undefined) return options.group !== undefined ? `${options.owner}:${options.group}` : options.owner;
  return options.group !== undefined ? `:${options.group}` : undefined;
}

export function atomicWriteCommand(path: string, options: WriteFileOptions, expected: ExpectedContent): ShellCommand {
  if (!path.startsWith('/') || path.endsWith('/')) throw new Error(`remote file paths must be absolute and name a file (got "${path}")`);
  if (!Number.isInteger(options.mode) || options.mode < 0 || options.mode > 0o7777) {
    throw new Error(`file mode for ${path} must be between 0 and 0o7777 (got ${options.mode})`);
  }
  if (!Number.isSafeInteger(expected.size) || expected.size < 0) throw new Error(`expected size for ${path} must be a byte count (got ${expected.size})`);
  if (!/^[0-9a-f]{64}$/.test(expected.sha256)) throw new Error(`expected sha256 for ${path} must be 64 lower-case hex digits (got "${expected.sha256}")`);
  const dir = parentOf(path);
  const mode = options.mode.toString(8).padStart(4, '0');
  const owner = ownerSpec(options);
  const size = String(expected.size);
  // Parents are made under umask 022: under 077 every intermediate directory would be 0700.
  const mkdir = options.mkdirParents ? sh`umask 022 && mkdir -p -- ${dir} || exit 1; ` : shellRaw('');
  const chown = owner !== undefined ? sh` && chown -- ${owner} "$t"` : shellRaw('');
  const received = sh`kc_n=$(stat -c %s -- "$t") || exit 1; if [ "$kc_n" != ${size} ]; then echo "received $kc_n of "${size}" bytes for "${path}": the transfer was cut short; the file was left as it was" >&2; exit 1; fi; kc_h=$(sha256sum < "$t") || exit 1; if [ "\${kc_h%% *}" != ${expected.sha256} ]; then echo "the bytes received for "${path}" do not have the sha256 that was sent; the file was left as it was" >&2; exit 1; fi; `;
  // The traps come before the temp file exists, and the EXIT trap ignores signals before it
  // removes it: the session guard's SIGTERM to the process group could otherwise kill that very
  // `rm` while the shell cleans up after a short read (1 in 6 SIGKILLs of the controller left a
  // .kcluster-write.* file). An ignored signal stays ignored in `rm`.
  return sh`${mkdir}umask 077; t=; trap 'trap "" HUP INT TERM PIPE; [ -z "$t" ] || rm -f -- "$t"' EXIT; trap 'exit 1' HUP INT TERM PIPE; t=$(mktemp ${`${dir}/.kcluster-write.XXXXXX`}) || exit 1; cat > "$t" || exit 1; ${received}chmod ${mode} "$t"${chown} && { sync -- "$t" 2>/dev/null || true; } && echo written && mv -f -- "$t" ${path} && trap - EXIT`;
}
