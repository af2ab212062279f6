// Checks the JSON Schema cannot express: duplicates, topology, CIDRs, versions, references.
// They also run on a document that failed the schema (`tolerant`), so that one pass reports
// everything; each check then skips values of the wrong shape, which the schema reported.
import { existsSync } from 'node:fs';
import { checkCluster } from './check-cluster.js';
import { checkGroups, checkHosts } from './check-hosts.js';
import { formatPath, type Diagnostic } from './diagnostics.js';
import type { Inventory } from './model.js';
import type { RawInventory } from './raw-inventory.js';
import type { SourceMap } from './source-map.js';

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
    } else if (ssh.keyFile && !existsSync(ssh.keyFile)) {
      const at = own?.keyFile !== undefined ? ['hosts', i, 'keyFile'] : raw.ssh?.keyFile !== undefined ? ['ssh', 'keyFile'] : ['hosts', i];
      report(at, `key file ${ssh.keyFile} does not exist`, 'warning');
    }
  });
  if (stranded.length === 0) return;
  // Every such host inherits the same missing default: one message, where the default lives.
  const where = raw.ssh !== undefined ? ['ssh'] : ['hosts'];
  const explicitNoAgent = raw.ssh?.agent === false;
  report(
    where,
    `no way to log in to ${stranded.join(', ')}: ` +
      (explicitNoAgent
        ? 'agent is false and no keyFile or passwordEnv is set; '
        : 'no keyFile, agent or passwordEnv is set, SSH_AUTH_SOCK is not set, and neither ~/.ssh/id_ed25519 nor ~/.ssh/id_rsa exists; ') +
      'set ssh.keyFile (or keyFile on a host), agent: true with a running ssh-agent, or passwordEnv',
  );
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
  checkGroups(raw, report);
  if (inventory) checkAuth(inventory, raw, report);
  return out;
}
