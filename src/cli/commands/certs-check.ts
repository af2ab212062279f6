// `kcluster certs check -i FILE [--output text|json] [--warn-days N]`: every certificate in the
// controller's state folder and on every inventory host (one command per host, all hosts in
// parallel), soonest expiry first, each host copy compared with the state folder's. Warns on
// stderr about what expires within --warn-days; an unreachable host is named with the reason
// (exit 5) without hiding what the others returned.
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadInventoryOrReport } from '../load-inventory-or-report.js';
import {
  certificateTable,
  compareWithState,
  expiringWithin,
  sortByExpiry,
  type CertificateProblem,
  type CertificateRow,
} from '../../kubernetes/pki/certificate-inventory.js';
import { adviceFor, expiryLine } from '../../kubernetes/pki/expiry-warnings.js';
import { readHostCertificates } from '../../kubernetes/pki/remote-certificates.js';
import { readStateCertificates } from '../../kubernetes/pki/state-certificates.js';
import { pkiSpecOf } from '../../kubernetes/cluster/pki-spec.js';
import { topologyOf } from '../../kubernetes/cluster/topology.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { leafRequests } from '../../kubernetes/pki/cluster-pki.js';
import { readOnEachHost } from '../read-on-each-host.js';

export interface CertsCheckOptions {
  readonly inventory: string;
  readonly output: 'text' | 'json';
  readonly warnDays: string;
}

interface HostOutcome {
  readonly host: string;
  readonly status: 'ok' | 'unreachable' | 'failed';
  readonly error?: string;
  readonly rows: readonly CertificateRow[];
  readonly problems: readonly CertificateProblem[];
}

/** Every line about a host starts with its name (and says "unreachable" when it was). */
/** File stems of the leaves the inventory needs; undefined when its topology is invalid. */
function managedLeaves(inventory: Inventory): Set<string> | undefined {
  try {
    return new Set(leafRequests(pkiSpecOf(inventory, topologyOf(inventory))).map((r) => r.file));
  } catch {
    return undefined;
  }
}

export async function certsCheck(cli: CliContext, options: CertsCheckOptions): Promise<void> {
  const warnDays = Number(options.warnDays);
  if (!Number.isInteger(warnDays) || warnDays < 0) {
    cli.stderr.write(`kcluster: --warn-days must be a whole number of days, 0 or more (got "${options.warnDays}")\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return;
  }
  const inventory = await loadInventoryOrReport(cli, options.inventory);
  if (!inventory) return;
  const now = Date.now();
  const state = await readStateCertificates(inventory.stateDir, now);
  const reads = await readOnEachHost(cli, inventory, inventory.hosts, 'cannot list its certificates', (connection) =>
    readHostCertificates(connection, now, cli.signal),
  );
  const outcomes: HostOutcome[] = reads.map((r) =>
    r.status === 'ok'
      ? { host: r.host, status: 'ok', rows: compareWithState(r.value.rows, state.fingerprints), problems: r.value.problems }
      : { host: r.host, status: r.status, error: r.error, rows: [], problems: [] },
  );

  const rows = sortByExpiry([...state.rows, ...outcomes.flatMap((o) => o.rows)]);
  const problems = [...state.problems, ...outcomes.flatMap((o) => o.problems)];
  if (options.output === 'json') {
    const hosts = outcomes.map((o) => ({ host: o.host, status: o.status, ...(o.error ? { error: o.error } : {}) }));
    cli.stdout.write(`${JSON.stringify({ stateDir: inventory.stateDir, warnDays, certificates: rows, problems, hosts }, null, 2)}\n`);
  } else {
    cli.stdout.write(`${certificateTable(rows)}\n`);
  }

  const err = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  if (!state.exists) err(`no cluster PKI in ${state.pkiDir} (kcluster apply creates it): nothing to compare the hosts' certificates with`);
  for (const o of outcomes) if (o.error) cli.stderr.write(`${o.error}\n`);
  for (const p of problems) err(`${p.location} ${p.path}: ${p.problem}`);
  const managed = managedLeaves(inventory);
  const stateLeaves = managed ? { pkiDir: state.pkiDir, managedLeaves: managed } : undefined;
  for (const row of expiringWithin(rows, warnDays)) err(expiryLine(row, adviceFor(row, options.inventory, stateLeaves)));
  for (const o of outcomes) {
    const stale = o.rows.filter((r) => r.matchesState === 'no');
    if (stale.length > 0)
      err(
        `${o.host}: ${stale.length} certificate(s) differ from the state folder's (${stale.map((r) => r.path).join(', ')}): the host has not received the current ones; run kcluster apply -i ${options.inventory}`,
      );
  }
  if (outcomes.some((o) => o.status === 'failed')) cli.setExitCode(ExitCode.HostsFailed);
  else if (outcomes.some((o) => o.status === 'unreachable')) cli.setExitCode(ExitCode.HostsUnreachable);
}
