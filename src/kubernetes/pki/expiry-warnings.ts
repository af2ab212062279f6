// Warnings about certificates near their end, with what to do about each: the lines
// `kcluster certs check` writes for every certificate within --warn-days, and the selection
// `kcluster apply` warns about after ensuring the PKI (what it did not renew: in practice the
// CAs, and leaves of hosts no longer in the inventory).
import { CONTROLLER, daysLeftText, type CertificateRow } from './certificate-inventory.js';

export const CA_ROTATION_HINT =
  'kcluster never replaces a CA by itself: rotate it with kcluster certs rotate-ca (docs/users/certificates.md, section "CA rotation")';

/** A state-folder certificate's file stem: "<pkiDir>/etcd/server-cp1.crt" -> "etcd/server-cp1". */
export function stateStem(pkiDir: string, path: string): string {
  const prefix = `${pkiDir.replace(/\/+$/, '')}/`;
  return (path.startsWith(prefix) ? path.slice(prefix.length) : path).replace(/(#\d+)?$/, '').replace(/\.crt$/, '');
}

const unusedAdvice = (inventoryFile: string, path: string): string => `no host in ${inventoryFile} uses it (a removed node?): delete ${path} and its .key`;

/**
 * What to do about one certificate that expires soon (or did). With `state`, a leaf of the
 * state folder that no inventory host uses is told apart (renew does not renew it).
 */
export function adviceFor(
  row: CertificateRow,
  inventoryFile: string,
  state?: { readonly pkiDir: string; readonly managedLeaves: ReadonlySet<string> },
): string {
  if (row.ca) return CA_ROTATION_HINT;
  if (state && row.location === CONTROLLER && !state.managedLeaves.has(stateStem(state.pkiDir, row.path))) return unusedAdvice(inventoryFile, row.path);
  if (row.location !== CONTROLLER && row.matchesState === '-')
    return 'the state folder has no copy of it (kcluster does not manage this file): renew it where it comes from';
  if (row.matchesState === 'no')
    return `the state folder holds another certificate for it: run kcluster apply -i ${inventoryFile} (or kcluster certs renew -i ${inventoryFile}) to install the current one`;
  return `run kcluster certs renew -i ${inventoryFile} (kcluster apply also renews leaves within 30 days of expiry)`;
}

/** "EXPIRED: HOST PATH (CN x) expired on DATE (N days ago): ADVICE" or "warning: ... expires on DATE (in N days): ...". */
export function expiryLine(row: CertificateRow, advice: string): string {
  const date = row.notAfter.slice(0, 10);
  const what = `${row.location} ${row.path} (CN ${row.subjectCn})`;
  const days = (n: number): string => `${n} day${n === 1 ? '' : 's'}`;
  if (row.daysLeft < 0) return `${daysLeftText(row)}: ${what} expired on ${date} (${days(-row.daysLeft)} ago): ${advice}`;
  return `warning: ${what} expires on ${date} (in ${days(row.daysLeft)}): ${advice}`;
}

export interface StateWarningContext {
  /** <stateDir>/pki: row paths are under it. */
  readonly pkiDir: string;
  readonly inventoryFile: string;
  readonly withinDays: number;
  /** File stems this run (re)created, e.g. "apiserver", "etcd/server-cp1". */
  readonly renewed: ReadonlySet<string>;
  /** File stems of every leaf the inventory needs (the others belong to no host any more). */
  readonly managedLeaves: ReadonlySet<string>;
}

export interface StateWarning {
  readonly row: CertificateRow;
  readonly advice: string;
}

/** The file stems a ClusterPki's `changes` name ("apiserver: created" -> "apiserver"). */
export function changedStems(changes: readonly string[]): Set<string> {
  return new Set(changes.map((c) => c.slice(0, c.indexOf(': ') === -1 ? undefined : c.indexOf(': '))));
}

/**
 * Certificates of the state folder that expire within `withinDays` days (or did) and that this
 * run did not renew, soonest first, each with what to do.
 */
export function stateExpiryWarnings(rows: readonly CertificateRow[], context: StateWarningContext): StateWarning[] {
  const stemOf = (path: string): string => stateStem(context.pkiDir, path);
  return rows
    .filter((row) => row.daysLeft < context.withinDays && !context.renewed.has(stemOf(row.path)))
    .sort((a, b) => a.notAfter.localeCompare(b.notAfter) || a.path.localeCompare(b.path))
    .map((row) => {
      const stem = stemOf(row.path);
      let advice: string;
      if (row.ca) advice = `${CA_ROTATION_HINT}; until then nothing it signed can be trusted past that date`;
      else if (!context.managedLeaves.has(stem)) advice = unusedAdvice(context.inventoryFile, row.path);
      else advice = `run kcluster certs renew -i ${context.inventoryFile}`;
      return { row, advice };
    });
}
