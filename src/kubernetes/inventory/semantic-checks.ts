// Checks the JSON Schema cannot express: duplicates, topology, CIDRs, versions, references.
// They also run on a document that failed the schema (`tolerant`), so that one pass reports
// everything; each check then skips values of the wrong shape, which the schema reported.
import { existsSync } from 'node:fs';
import { checkCluster } from './check-cluster.js';
import { checkVirtualIp } from './check-virtual-ip.js';
import { checkGroups, checkHosts } from './check-hosts.js';
import { checkVarNames } from './check-var-names.js';
import { formatPath, someOf, type Diagnostic } from './diagnostics.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { RawInventory } from './raw-inventory.js';
import type { SourceMap } from './source-map.js';
import { parseDuration } from './resolve-inventory.js';
import { fileProblem, MAX_KEY_FILE_BYTES, MAX_KNOWN_HOSTS_BYTES } from '../../orchestrator/util/bounded-file.js';

const MAX_AUDIT_POLICY_BYTES = 1024 * 1024;
import { recordAt } from './shape.js';

/** Report a problem at `path`; with `atKey`, at the key `atKey` of the map at `path`. */
export type Report = (path: (string | number)[], message: string, severity?: 'error' | 'warning', atKey?: string) => void;

function checkAuth(inventory: Inventory, raw: RawInventory, report: Report): void {
  const stranded: string[] = [];
  inventory.hosts.forEach((host, i) => {
    const ssh = host.ssh;
    const own = raw.hosts[i];
    if (!ssh.keyFile && !ssh.agent && !ssh.passwordEnv) {
      const ownAuth = own && (own.keyFile !== undefined || own.agent !== undefined || own.passwordEnv !== undefined);
      if (ownAuth) report(['hosts', i], 'no way to log in: agent is false and neither keyFile nor passwordEnv is set');
      else stranded.push(host.name);
    } else if (ssh.keyFile) {
      const at = own?.keyFile !== undefined ? ['hosts', i, 'keyFile'] : raw.ssh?.keyFile !== undefined ? ['ssh', 'keyFile'] : ['hosts', i];
      if (!existsSync(ssh.keyFile)) report(at, `key file ${ssh.keyFile} does not exist`, 'warning');
      else {
        const problem = fileProblem(ssh.keyFile, MAX_KEY_FILE_BYTES, 'a private key file');
        if (problem) report(at, problem);
      }
    }
  });
  if (stranded.length === 0) return;
  // Every such host inherits the same missing default: one message, where the default lives.
  const where = raw.ssh !== undefined ? ['ssh'] : ['hosts'];
  const explicitNoAgent = raw.ssh?.agent === false;
  report(
    where,
    `no way to log in to ${stranded.length === inventory.hosts.length && stranded.length > 5 ? `any of the ${stranded.length} hosts` : someOf(stranded)}: ` +
      (explicitNoAgent
        ? 'agent is false and no keyFile or passwordEnv is set; '
        : 'no keyFile, agent or passwordEnv is set, SSH_AUTH_SOCK is not set, and neither ~/.ssh/id_ed25519 nor ~/.ssh/id_rsa exists; ') +
      'set ssh.keyFile (or keyFile on a host), agent: true with a running ssh-agent, or passwordEnv',
  );
}

/**
 * Durations a timer can hold: Node turns a delay of 2^31 ms or more into 1 ms, so an
 * unbounded connectTimeout or keepaliveInterval made every host look unreachable.
 */
export const DURATION_BOUNDS: Readonly<Record<string, { readonly min: number; readonly max: number }>> = {
  connectTimeout: { min: 100, max: 600_000 },
  keepaliveInterval: { min: 100, max: 600_000 },
  commandIdleTimeout: { min: 1_000, max: 86_400_000 },
};

function checkDurations(raw: RawInventory, report: Report): void {
  const ssh = recordAt(raw, 'ssh');
  for (const [key, bounds] of Object.entries(DURATION_BOUNDS)) {
    const value = ssh?.[key];
    if (!(typeof value === 'number' && Number.isInteger(value)) && typeof value !== 'string') continue;
    const ms = parseDuration(value, Number.NaN);
    if (Number.isNaN(ms)) continue; // the schema reported its shape
    if (ms < bounds.min || ms > bounds.max) {
      report(
        ['ssh', key],
        `${key} must be between ${bounds.min} ms and ${bounds.max / 60_000} minutes (got ${value}${typeof value === 'number' ? ' ms' : ''})`,
      );
    }
  }
}

export function semanticDiagnostics(
  raw: RawInventory,
  inventory: Inventory | undefined,
  map: SourceMap,
  file: string,
  options: { tolerant?: boolean } = {},
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const report: Report = (path, message, severity = 'error', atKey) => {
    const full = atKey === undefined ? path : [...path, atKey];
    const text = `${formatPath(full)}\u0000${message}`;
    if (seen.has(text)) return;
    seen.add(text);
    const position = atKey === undefined ? map.value(path) : map.key(path, atKey);
    out.push({ file, ...position, path: formatPath(full), message, severity });
  };
  const tolerant = options.tolerant ?? false;
  checkHosts(raw, report, tolerant);
  checkCluster(raw, report);
  checkVirtualIp(raw, report);
  checkGroups(raw, report);
  checkDurations(raw, report);
  checkVarNames(raw, report);
  if (inventory) {
    checkAuth(inventory, raw, report);
    const knownHosts = inventory.ssh.knownHostsFile;
    const problem = knownHosts !== undefined ? fileProblem(knownHosts, MAX_KNOWN_HOSTS_BYTES, 'a known_hosts file') : undefined;
    if (problem) report(['ssh', 'knownHostsFile'], problem);
    const policy = inventory.cluster.audit.policyFile;
    if (policy !== undefined) {
      const policyProblem = existsSync(policy) ? fileProblem(policy, MAX_AUDIT_POLICY_BYTES, 'an audit policy') : `audit policy ${policy} does not exist`;
      if (policyProblem) report(['cluster', 'audit', 'policyFile'], policyProblem);
    }
  }
  return out;
}
