// Refusals of a host key, worded so a person can tell an attack from a re-install and knows
// the exact command that re-keys the host deliberately.
import { UnreachableError } from './connection.js';
import { fingerprintSha256 } from './fingerprint.js';
import type { KnownHostEntry } from './known-hosts.js';
import { quoteWord } from './quote.js';

export interface HostKeyTarget {
  readonly name: string;
  readonly address: string;
  readonly port: number;
}

/** The host presented a key other than the one known for it (or a revoked/unknown one). */
export class HostKeyMismatchError extends UnreachableError {
  constructor(
    host: string,
    detail: string,
    /** "SHA256:..." of the key the host presented. */
    readonly presented: string,
    /** "SHA256:..." of the key we expected, and where it came from ("file:line"). */
    readonly expected?: { readonly fingerprint: string; readonly source: string },
  ) {
    super(host, detail);
    this.name = 'HostKeyMismatchError';
  }
}

export function mismatchError(
  target: HostKeyTarget,
  expected: KnownHostEntry,
  presented: string,
  presentedType: string,
  pinFile: string,
  inventoryFile: string,
): HostKeyMismatchError {
  const expectedFingerprint = fingerprintSha256(Buffer.from(expected.keyBase64, 'base64'));
  const source = `${expected.file}:${expected.line}`;
  const rekey = `kcluster trust --refresh ${target.name} -i ${inventoryFile}`;
  return new HostKeyMismatchError(
    target.name,
    [
      `HOST KEY MISMATCH for ${target.address}:${target.port}, refusing to connect`,
      `  expected  ${expectedFingerprint} (${expected.keyType}) from ${source}`,
      `  presented ${presented} (${presentedType})`,
      '  Someone may be intercepting the connection, or the host was re-installed.',
      expected.file === pinFile
        ? `  If you know the host was re-installed, re-key it deliberately: ${rekey}`
        : `  If you know the host was re-installed, remove the old key (ssh-keygen -f ${quoteWord(expected.file)} -R ${quoteWord(knownName(expected, target))}), then: ${rekey}`,
    ].join('\n'),
    presented,
    { fingerprint: expectedFingerprint, source },
  );
}

/** The name ssh-keygen -R needs: the entry's own first name, or the address for hashed entries. */
function knownName(entry: KnownHostEntry, target: HostKeyTarget): string {
  const first = entry.patterns.split(',')[0] ?? '';
  return entry.patterns.startsWith('|') || /[*?!]/.test(first) || first === ''
    ? target.port === 22
      ? target.address
      : `[${target.address}]:${target.port}`
    : first;
}

export function revokedError(target: HostKeyTarget, entry: KnownHostEntry, presented: string): HostKeyMismatchError {
  return new HostKeyMismatchError(
    target.name,
    `the host key ${presented} presented by ${target.address}:${target.port} is marked @revoked in ${entry.file}:${entry.line}; refusing to connect (give the host a new key, then: kcluster trust)`,
    presented,
  );
}

export function unknownKeyStrictError(target: HostKeyTarget, presented: string, inventoryFile: string): HostKeyMismatchError {
  return new HostKeyMismatchError(
    target.name,
    `unknown host key ${presented} for ${target.address}:${target.port}, and strict host key checking is on (no trust on first use); check the fingerprint, then pin it deliberately: kcluster trust ${target.name} -i ${inventoryFile}`,
    presented,
  );
}
