// Nothing a run started stays behind on a host whose connection died. sshd sends no SIGHUP to
// the commands of a session without a terminal: when a link is cut, it only closes their pipes
// once it notices (a `sleep` outlives its session by as long as it runs, and a command that
// neither reads nor writes never notices; bench/results/2026-11-28-figures-from-code-comments.md).
// So every connection starts one guard: a shell, as root when the connection becomes root,
// that blocks reading its stdin. The controller keeps that stdin open for the run and writes
// "bye" before it closes the connection; EOF without it means the session is gone, and the
// guard ends the process group of every process whose environment holds the connection's token
// (set by `KCLUSTER_SESSION=<token>.<N> exec` on each command, see become.ts): SIGTERM, then
// SIGKILL for what is left. The guard never polls: while it waits it costs no CPU, and the
// commands pay one variable assignment.
// The same marks let kcluster end one command it stopped on a live connection.
import { randomBytes } from 'node:crypto';
import { SESSION_MARK, SESSION_TOKEN, SESSION_VARIABLE } from './become.js';
import { sh, shellRaw, type ShellCommand } from './quote.js';

/** Written to the guard's stdin on a normal close: it then exits without touching anything. */
export const GUARD_GOODBYE = 'bye\n';

/** A fresh token for one connection. */
export function newSessionToken(): string {
  return randomBytes(12).toString('hex');
}

/**
 * The part that ends marked processes: every process whose environment holds an entry matching
 * `grep -z` with `match` (a pattern, anchored), by process group (never group 0 or 1, never the
 * caller's own), SIGTERM first; SIGKILL only for what is still there once every marked process
 * is gone or 10 s have passed: an upload's shell traps TERM and removes its temp file once its
 * current step ends, and that step can be a `sync` of a large file on a loaded disk (a fixed 1 s
 * grace, and before it a SIGKILL at once, left .kcluster-write.* files behind in CI). Then two
 * KILL passes to catch a fork. Each group once per pass: a second TERM killed the trap's own
 * `rm` (it carries the mark). `kill -KILL -PGID` without `--`: dash's kill refuses both `--` and
 * `-s KILL -PGID` (Debian's dash). `${kc_s##*) }`: the fields after the command name in
 * /proc/PID/stat (the name may hold ") "); $3 is then the process group.
 */
function endMarkedProcesses(match: ShellCommand): ShellCommand {
  return sh`${shellRaw(
    'read -r kc_s 2>/dev/null < /proc/$$/stat || exit 1; set -- ${kc_s##*) }; kc_own=$3; ',
  )}kc_hit() { kc_sig=$1; kc_done=' '; for kc_f in $(grep -l -s -z ${match} /proc/[0-9]*/environ); do ${shellRaw(
    'kc_p=${kc_f#/proc/}; kc_p=${kc_p%/environ}; read -r kc_s 2>/dev/null < /proc/$kc_p/stat || continue; set -- ${kc_s##*) }; ' +
      'if [ "$3" -gt 1 ] && [ "$3" != "$kc_own" ]; then case $kc_done in *" $3 "*) ;; *) kc_done="$kc_done$3 "; kill -"$kc_sig" "-$3" 2>/dev/null ;; esac; ' +
      'else kill -"$kc_sig" "$kc_p" 2>/dev/null; fi; ',
  )}done; }; kc_left() { grep -q -s -z ${match} /proc/[0-9]*/environ; }; kc_hit TERM; kc_i=0; while [ "$kc_i" -lt 50 ] && kc_left; do sleep 0.2; kc_i=$((kc_i + 1)); done; kc_hit KILL; kc_hit KILL; exit 0`;
}

/** The guard's script (POSIX sh; Linux /proc): on EOF without the goodbye, every command of the connection ends. */
export function sessionGuardScript(token: string): ShellCommand {
  if (!SESSION_TOKEN.test(token)) throw new Error(`a session token is 16-64 hex digits (got "${token}")`);
  // Its own environment never holds the token; every command's holds `<token>.<N>`.
  return sh`IFS= read -r kc_line; [ "$kc_line" = bye ] && exit 0; ${endMarkedProcesses(sh`-e ${`^${SESSION_VARIABLE}=${token}\\.`}`)}`;
}

/**
 * Ends one command of a live connection that kcluster stopped (a timeout, the idle limit,
 * Ctrl-C): OpenSSH does not deliver a signal to a command without a terminal, so the command
 * and what it started would run on. Run over the same connection, as the same user.
 */
export function stopCommandScript(mark: string): ShellCommand {
  if (!SESSION_MARK.test(mark) || !mark.includes('.')) throw new Error(`a command mark is <token>.<N> (got "${mark}")`);
  return endMarkedProcesses(sh`-F -x -e ${`${SESSION_VARIABLE}=${mark}`}`);
}
