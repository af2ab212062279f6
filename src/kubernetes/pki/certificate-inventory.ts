// What `kcluster certs check` knows about one certificate, and the pure functions around it:
// PEM blocks cut out of text, one row per certificate (subject and issuer CN, end date, days
// left, CA or not), the state folder's copy a host file should equal, the comparison that
// flags a host still holding an old certificate, sorting by expiry and the warning selection.
import { X509Certificate } from 'node:crypto';
import { textTable } from '../../orchestrator/util/text-table.js';

const DAY_MS = 86_400_000;

export type MatchesState = 'yes' | 'no' | '-';

export interface CertificateRow {
  /** "controller" for the state folder, otherwise the inventory host name. */
  readonly location: string;
  /** The file it was read from (a kubeconfig's path for an embedded client certificate). */
  readonly path: string;
  readonly subjectCn: string;
  readonly issuerCn: string;
  /** ISO 8601. */
  readonly notAfter: string;
  /** Whole days until notAfter; negative once expired. */
  readonly daysLeft: number;
  readonly ca: boolean;
  readonly serialNumber: string;
  readonly fingerprint256: string;
  /** A host certificate equals the state folder's copy ("-": none to compare with). */
  readonly matchesState: MatchesState;
}

/** A certificate that could not be read or parsed, and why. */
export interface CertificateProblem {
  readonly location: string;
  readonly path: string;
  readonly problem: string;
}

export const CONTROLLER = 'controller';

/** Every PEM CERTIFICATE block in `text`, in order (private keys and other blocks ignored). */
export function pemBlocks(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => `${m[0]}\n`);
}

/** The CN of an X509Certificate subject or issuer ("-" when there is none). */
function commonName(dn: string): string {
  return /(?:^|\n)CN=([^\n]*)/.exec(dn)?.[1] ?? '-';
}

export function describeCertificate(location: string, path: string, pem: string | Buffer, now: number): CertificateRow {
  const cert = new X509Certificate(pem);
  const notAfter = Date.parse(cert.validTo);
  return {
    location,
    path,
    subjectCn: commonName(cert.subject),
    issuerCn: commonName(cert.issuer),
    notAfter: new Date(notAfter).toISOString(),
    daysLeft: Math.floor((notAfter - now) / DAY_MS),
    ca: cert.ca,
    serialNumber: cert.serialNumber,
    fingerprint256: cert.fingerprint256,
    matchesState: '-',
  };
}

/**
 * Rows for every certificate in `text` (a file's content): "path" for one, "path#2"... when a
 * file holds several. A block that does not parse becomes a problem naming the file.
 */
export function describeCertificates(
  location: string,
  path: string,
  text: string | Buffer,
  now: number,
): { rows: CertificateRow[]; problems: CertificateProblem[] } {
  const source = typeof text === 'string' ? text : text.toString('latin1');
  const blocks: (string | Buffer)[] = pemBlocks(source);
  // Not PEM: maybe one DER certificate.
  if (blocks.length === 0 && typeof text !== 'string' && text.length > 0 && text[0] === 0x30) blocks.push(text);
  if (blocks.length === 0) return { rows: [], problems: [{ location, path, problem: 'no certificate in it' }] };
  const rows: CertificateRow[] = [];
  const problems: CertificateProblem[] = [];
  blocks.forEach((block, i) => {
    const name = blocks.length === 1 ? path : `${path}#${i + 1}`;
    try {
      rows.push(describeCertificate(location, name, block, now));
    } catch (error) {
      problems.push({ location, path: name, problem: `does not parse as an X.509 certificate (${(error as Error).message})` });
    }
  });
  return { rows, problems };
}

const CONTROL_PLANE_FILES = new Set([
  'ca',
  'front-proxy-ca',
  'etcd/ca',
  'apiserver',
  'apiserver-kubelet-client',
  'apiserver-etcd-client',
  'front-proxy-client',
  'etcd/healthcheck-client',
]);
const KUBECONFIG_USERS: Readonly<Record<string, string>> = {
  'admin.conf': 'admin',
  'controller-manager.conf': 'controller-manager',
  'scheduler.conf': 'scheduler',
};

/**
 * The file under <stateDir>/pki (relative, e.g. "etcd/server-cp1.crt") that `path` on `host`
 * is a copy of, as the control-plane and kubelet roles install them; undefined for files
 * kcluster does not install.
 */
export function stateCounterpart(host: string, path: string): string | undefined {
  const pki = /^\/etc\/kubernetes\/pki\/(.+)\.crt$/.exec(path)?.[1];
  if (pki !== undefined) {
    if (CONTROL_PLANE_FILES.has(pki)) return `${pki}.crt`;
    if (pki === 'etcd/server' || pki === 'etcd/peer') return `${pki}-${host}.crt`;
    return undefined;
  }
  const etcdOwn = /^\/etc\/kubernetes\/etcd\/(server|peer)\.crt$/.exec(path)?.[1];
  if (etcdOwn !== undefined) return `etcd/${etcdOwn}-${host}.crt`;
  if (path === '/var/lib/kubelet/pki/kubelet.crt') return `kubelet-serving/${host}.crt`;
  const conf = /^\/etc\/kubernetes\/([^/]+\.conf)$/.exec(path)?.[1];
  if (conf === 'kubelet.conf') return `kubelet/${host}.crt`;
  if (conf !== undefined && KUBECONFIG_USERS[conf] !== undefined) return `${KUBECONFIG_USERS[conf]}.crt`;
  return undefined;
}

/**
 * Set matchesState on host rows: "yes" when the state folder's copy (by fingerprint, keyed by
 * its path relative to <stateDir>/pki) is the same certificate, "no" when it differs (the host
 * has not received a renewed certificate), "-" when there is no copy to compare with.
 */
export function compareWithState(rows: readonly CertificateRow[], stateFingerprints: ReadonlyMap<string, string>): CertificateRow[] {
  return rows.map((row) => {
    if (row.location === CONTROLLER) return row;
    const counterpart = stateCounterpart(row.location, row.path);
    const expected = counterpart === undefined ? undefined : stateFingerprints.get(counterpart);
    return { ...row, matchesState: expected === undefined ? '-' : expected === row.fingerprint256 ? 'yes' : 'no' };
  });
}

/** Soonest expiry first; then the controller before hosts, hosts and paths by name. */
export function sortByExpiry(rows: readonly CertificateRow[]): CertificateRow[] {
  const rank = (row: CertificateRow): string => (row.location === CONTROLLER ? '' : row.location);
  return [...rows].sort((a, b) => a.notAfter.localeCompare(b.notAfter) || rank(a).localeCompare(rank(b)) || a.path.localeCompare(b.path));
}

/** Certificates that expire within `days` days, or already did (daysLeft below 0). */
export function expiringWithin(rows: readonly CertificateRow[], days: number): CertificateRow[] {
  return sortByExpiry(rows.filter((row) => row.daysLeft < days));
}

export function daysLeftText(row: Pick<CertificateRow, 'daysLeft'>): string {
  return row.daysLeft < 0 ? 'EXPIRED' : String(row.daysLeft);
}

/** The `certs check` table, one row per certificate, in the order given. */
export function certificateTable(rows: readonly CertificateRow[]): string {
  const header = ['host', 'path', 'subject CN', 'issuer CN', 'not after', 'days left', 'CA', 'matches state'];
  const cells = rows.map((r) => [
    r.location,
    r.path,
    r.subjectCn,
    r.issuerCn,
    r.notAfter.replace(/\.\d{3}Z$/, 'Z'),
    daysLeftText(r),
    r.ca ? 'yes' : 'no',
    r.matchesState,
  ]);
  return textTable([header, ...cells]);
}
