// Nothing a run started stays behind on a host whose connection died. sshd sends no SIGHUP to
// the commands of a session without a terminal: when a link is cut, it only closes their pipes
// once it notices (measured on a lab host: a `sleep` outlived its session by as long as it ran,
// and a command that neither reads nor writes never notices). So every connection starts one
// guard: a shell, as root when the connection becomes root, that blocks reading its stdin. The
// controller keeps that stdin open for the run and writes "bye" before it closes the connection;
// EOF without it means the session is gone, and the guard SIGKILLs the process group of every
// process whose environment holds the connection's token (set by `KCLUSTER_SESSION=<token>
// exec` on each command, see become.ts), in two passes to catch a fork in between. The guard
// never polls: while it waits it costs no CPU, and the commands pay one variable assignment.
import { randomBytes } from 'node:crypto';
import { SESSION_TOKEN, SESSION_VARIABLE } from './become.js';
import { sh, shellRaw, type ShellCommand } from './quote.js';

/** Written to the guard's stdin on a normal close: it then exits without touching anything. */
export const GUARD_GOODBYE = 'bye\n';

/** A fresh token for one connection. */
export function newSessionToken(): string {
  return randomBytes(12).toString('hex');
}

/** The guard's script (POSIX sh; Linux /proc). Its own environment never holds the token. */
export function sessionGuardScript(token: string): ShellCommand {
  if (!SESSION_TOKEN.test(token)) throw new Error(`a session token is 16-64 hex digits (got "${token}")`);
  const mark = `${SESSION_VARIABLE}=${token}`;
  // `${kc_s##*) }`: the fields after the command name in /proc/PID/stat (the name may hold ") ");
  // $3 is then the process group. Never group 0 or 1, never the guard's own. `kill -KILL -PGID`
  // without `--`: dash's kill refuses both `--` and `-s KILL -PGID` (measured on Debian 12).
  return sh`IFS= read -r kc_line; [ "$kc_line" = bye ] && exit 0; ${shellRaw(
    'read -r kc_s 2>/dev/null < /proc/$$/stat || exit 1; set -- ${kc_s##*) }; kc_own=$3; ',
  )}for kc_pass in 1 2; do for kc_f in $(grep -l -s -F -x -z -- ${mark} /proc/[0-9]*/environ); do ${shellRaw(
    'kc_p=${kc_f#/proc/}; kc_p=${kc_p%/environ}; read -r kc_s 2>/dev/null < /proc/$kc_p/stat || continue; set -- ${kc_s##*) }; ' +
      'if [ "$3" -gt 1 ] && [ "$3" != "$kc_own" ]; then kill -KILL "-$3" 2>/dev/null; fi; kill -KILL "$kc_p" 2>/dev/null; ',
  )}done; done; exit 0`;
}
