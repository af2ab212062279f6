// The certificates in the controller's state folder (<stateDir>/pki, every *.crt at any
// depth), read for `kcluster certs check` and for apply's expiry warnings: one row each (path
// in full), plus each one's fingerprint by its path relative to the PKI folder, the key host
// certificates are compared by.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { CONTROLLER, describeCertificates, type CertificateProblem, type CertificateRow } from './certificate-inventory.js';

export interface StateCertificates {
  readonly pkiDir: string;
  /** False when the state folder has no PKI yet (kcluster apply never ran with it). */
  readonly exists: boolean;
  readonly rows: readonly CertificateRow[];
  readonly problems: readonly CertificateProblem[];
  /** Fingerprint (sha256, as X509Certificate prints it) by path relative to pkiDir, "/" separated. */
  readonly fingerprints: ReadonlyMap<string, string>;
}

async function crtFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await crtFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.crt')) found.push(full);
  }
  return found.sort();
}

export async function readStateCertificates(stateDir: string, now = Date.now()): Promise<StateCertificates> {
  const pkiDir = join(stateDir, 'pki');
  if (!existsSync(pkiDir)) return { pkiDir, exists: false, rows: [], problems: [], fingerprints: new Map() };
  const rows: CertificateRow[] = [];
  const problems: CertificateProblem[] = [];
  const fingerprints = new Map<string, string>();
  for (const file of await crtFiles(pkiDir)) {
    const found = describeCertificates(CONTROLLER, file, await readFile(file, 'utf8'), now);
    rows.push(...found.rows);
    problems.push(...found.problems);
    if (found.rows.length === 1) fingerprints.set(relative(pkiDir, file).split(sep).join('/'), found.rows[0]!.fingerprint256);
  }
  return { pkiDir, exists: true, rows, problems, fingerprints };
}
