// One command that writes stdin to a file atomically: a temp file in the same directory gets
// the content (umask 077: never readable by others half-written), mode and owner, is flushed,
// then renamed over the target. On any failure (or a signal) the temp file is removed and the
// old file stays as it was.
import type { WriteFileOptions } from './connection.js';
import { sh, shellRaw, type ShellCommand } from './quote.js';

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function ownerSpec(options: WriteFileOptions): string | undefined {
  if (options.owner !== undefined) return options.group !== undefined ? `${options.owner}:${options.group}` : options.owner;
  return options.group !== undefined ? `:${options.group}` : undefined;
}

export function atomicWriteCommand(path: string, options: WriteFileOptions): ShellCommand {
  if (!path.startsWith('/') || path.endsWith('/')) throw new Error(`remote file paths must be absolute and name a file (got "${path}")`);
  if (!Number.isInteger(options.mode) || options.mode < 0 || options.mode > 0o7777) {
    throw new Error(`file mode for ${path} must be between 0 and 0o7777 (got ${options.mode})`);
  }
  const dir = parentOf(path);
  const mode = options.mode.toString(8).padStart(4, '0');
  const owner = ownerSpec(options);
  // Parents are made under umask 022: under 077 every intermediate directory would be 0700.
  const mkdir = options.mkdirParents ? sh`umask 022 && mkdir -p -- ${dir} || exit 1; ` : shellRaw('');
  const chown = owner !== undefined ? sh` && chown -- ${owner} "$t"` : shellRaw('');
  return sh`${mkdir}umask 077; t=$(mktemp ${`${dir}/.kcluster-write.XXXXXX`}) || exit 1; trap 'rm -f -- "$t"' EXIT; trap 'exit 1' HUP INT TERM; cat > "$t" && chmod ${mode} "$t"${chown} && { sync -- "$t" 2>/dev/null || true; } && mv -f -- "$t" ${path} && trap - EXIT`;
}
