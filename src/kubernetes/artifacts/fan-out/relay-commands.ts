// The commands that run kcluster-relay on a host (src/kubernetes/relay): start a server for a
// verified file, or fetch one from another host's server. The token always travels on stdin.
import { randomBytes } from 'node:crypto';
import { sh, type ShellCommand } from '../../../orchestrator/ssh/quote.js';
import { INSTALL_DIRS } from '../required-artifacts.js';
import { RELAY_IDLE_SECONDS, RELAY_LIFETIME_MINUTES } from './fan-out-limits.js';

export const RELAY_PATH = `${INSTALL_DIRS.bin}/kcluster-relay`;
/** The servers' logs (tmpfs: gone at the next boot). */
export const RELAY_LOG_DIR = '/run/kcluster-relay';

/** A fresh token for one server: 32 random bytes, hex. */
export const newRelayToken = (): string => randomBytes(32).toString('hex');

/** host:port as a dialer takes it (IPv6 addresses in brackets). */
export const hostPort = (address: string, port: number): string => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

/** How long a fetch may take: two minutes, and one more second per 8 MiB. */
export const fetchTimeoutSeconds = (size: number): number => 120 + Math.ceil(size / (8 << 20));

/**
 * Starts a detached server for `path` on `address` (an ephemeral port), the token on stdin; prints
 * "port N" when it listens, or "no-relay: WHY" (exit 0: the host keeps its copy, it only serves no one).
 * With removeOnExit the server deletes the file when it exits; when it does not start, the caller does.
 */
export function relayServeCommand(file: { path: string; sha256: string; size: number }, address: string, removeOnExit: boolean): ShellCommand {
  const log = `${RELAY_LOG_DIR}/${file.sha256.slice(0, 16)}.log`;
  const flags = removeOnExit ? sh`-remove-on-exit` : sh``;
  return sh`[ -x ${RELAY_PATH} ] || { echo "no-relay: "${RELAY_PATH}" is missing"; exit 0; }
mkdir -p -m 0700 -- ${RELAY_LOG_DIR} || { echo "no-relay: cannot create "${RELAY_LOG_DIR}; exit 0; }
${RELAY_PATH} serve -listen ${hostPort(address, 0)} -file ${file.path} -sha256 ${file.sha256} -size ${file.size} -idle ${`${RELAY_IDLE_SECONDS}s`} -lifetime ${`${RELAY_LIFETIME_MINUTES}m`} -log ${log} ${flags} 2>&1 | sed 's/^kcluster-relay: /no-relay: /'`;
}

/** The port from relayServeCommand's output, or why there is none. */
export function parseServeOutput(stdout: string): { port: number } | { problem: string } {
  const port = /^port (\d+)$/m.exec(stdout);
  if (port) return { port: Number(port[1]) };
  const why = /^no-relay: (.*)$/m.exec(stdout);
  return { problem: why?.[1] ?? (stdout.trim() || 'the relay printed nothing') };
}

/** Fetches `file` from a holder's server into `file.path` (checked before rename by kcluster-relay), the token on stdin. */
export function relayFetchCommand(file: { path: string; sha256: string; size: number }, from: string, mode: string): ShellCommand {
  return sh`${RELAY_PATH} fetch -from ${from} -sha256 ${file.sha256} -size ${file.size} -out ${file.path} -mode ${mode} -timeout ${`${fetchTimeoutSeconds(file.size)}s`}`;
}
