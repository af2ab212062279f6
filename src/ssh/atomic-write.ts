// One command that writes stdin to a file atomically: a temp file in the same directory gets
// the content (umask 077: never readable by others half-written), mode and owner, is flushed,
// then renamed over the target. On any failure the temp file is removed and the old file stays.
import type { WriteFileOptions } from './connection.js';
import { sh, shellRaw, type ShellCommand } from './quote.js';

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function atomicWriteCommand(path: string, options: WriteFileOptions): ShellCommand {
  if (!path.startsWith('/')) throw new Error(`remote paths must be absolute (got "${path}")`);
  const dir = parentOf(path);
  const mode = options.mode.toString(8).padStart(4, '0');
  const owner = options.owner !== undefined ? `${options.owner}${options.group !== undefined ? `:${options.group}` : ''}` : options.group !== undefined ? `:${options.group}` : undefined;
  const mkdir = options.mkdirParents ? sh`mkdir -p -m 0755 ${dir} && ` : shellRaw('');
  const chown = owner !== undefined ? sh` && chown ${owner} "$t"` : shellRaw('');
  return sh`umask 077; ${mkdir}t=$(mktemp ${`${dir}/.kcluster-write.XXXXXX`}) || exit 1; trap 'rm -f "$t"' EXIT; cat > "$t" && chmod ${mode} "$t"${chown} && { sync -- "$t" 2>/dev/null || true; } && mv -f -- "$t" ${path} && trap - EXIT`;
}
