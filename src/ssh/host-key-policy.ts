// Host key verification: the user's known_hosts and the inventory's, else trust on first use
// with the key pinned in the state folder. A mismatch refuses the host, never silently.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fingerprintSha256, keyLine, keyType } from './fingerprint.js';
import { entryMatches, hostToken, readKnownHostsFile, type KnownHostEntry } from './known-hosts.js';

export interface HostKeyTarget {
  readonly name: string;
  readonly address: string;
  readonly port: number;
}

export class HostKeyMismatchError extends Error {
  constructor(
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostKeyMismatchError';
  }
}

export interface HostKeyPolicyOptions {
  /** Files checked first (user's ~/.ssh/known_hosts, the inventory's knownHostsFile). */
  readonly knownHostsFiles: readonly string[];
  /** Where trust-on-first-use pins keys (0600, in a 0700 folder). */
  readonly pinFile: string;
  /** Refuse keys found nowhere instead of pinning them. */
  readonly strict: boolean;
  /** Shown in messages: the inventory file, for the re-key command. */
  readonly inventoryFile: string;
}

export type HostKeyVerdict =
  | { readonly ok: true; readonly source: 'known_hosts' | 'pinned' | 'pinned-now'; readonly fingerprint: string }
  | { readonly ok: false; readonly error: HostKeyMismatchError };

function tokensFor(target: HostKeyTarget): string[] {
  return [...new Set([hostToken(target.address, target.port), hostToken(target.name, target.port)])];
}

export class HostKeyPolicy {
  constructor(readonly options: HostKeyPolicyOptions) {}

  private entries(files: readonly string[], target: HostKeyTarget): KnownHostEntry[] {
    const tokens = tokensFor(target);
    return files.flatMap((f) => readKnownHostsFile(f)).filter((e) => entryMatches(e, tokens));
  }

  check(target: HostKeyTarget, keyBlob: Buffer): HostKeyVerdict {
    const presented = { type: keyType(keyBlob), base64: keyBlob.toString('base64') };
    const fingerprint = fingerprintSha256(keyBlob);
    for (const [files, source] of [
      [this.options.knownHostsFiles, 'known_hosts'],
      [[this.options.pinFile], 'pinned'],
    ] as const) {
      const entries = this.entries(files, target);
      const revoked = entries.find((e) => e.revoked && e.keyBase64 === presented.base64);
      if (revoked) {
        return { ok: false, error: new HostKeyMismatchError(target.name, `${target.name}: the host key ${fingerprint} is marked @revoked in ${revoked.file}:${revoked.line}; refusing to connect`) };
      }
      const live = entries.filter((e) => !e.revoked);
      if (live.some((e) => e.keyType === presented.type && e.keyBase64 === presented.base64)) return { ok: true, source, fingerprint };
      // Known under another key of the SAME type: that is a changed key, not a new algorithm.
      const conflicting = live.find((e) => e.keyType === presented.type) ?? live[0];
      if (conflicting) return { ok: false, error: this.mismatch(target, conflicting, fingerprint, presented.type) };
    }
    if (this.options.strict) {
      return { ok: false, error: new HostKeyMismatchError(target.name, `${target.name}: unknown host key ${fingerprint} for ${target.address}:${target.port} and strict host key checking is on; pin it deliberately with: kcluster trust ${target.name} -i ${this.options.inventoryFile}`) };
    }
    this.pin(target, keyBlob);
    return { ok: true, source: 'pinned-now', fingerprint };
  }

  private mismatch(target: HostKeyTarget, expected: KnownHostEntry, presented: string, type: string): HostKeyMismatchError {
    const expectedFingerprint = fingerprintSha256(Buffer.from(expected.keyBase64, 'base64'));
    const pinned = expected.file === this.options.pinFile;
    return new HostKeyMismatchError(
      target.name,
      [
        `${target.name}: HOST KEY MISMATCH for ${target.address}:${target.port}: refusing to connect`,
        `  expected  ${expectedFingerprint} (${expected.keyType}) from ${expected.file}:${expected.line}`,
        `  presented ${presented} (${type})`,
        '  Someone may be intercepting the connection, or the host was re-installed.',
        pinned
          ? `  If the host was re-installed, re-key it deliberately: kcluster trust --refresh ${target.name} -i ${this.options.inventoryFile}`
          : `  If the host was re-installed, remove the old key (ssh-keygen -f ${expected.file} -R ${target.address}), then: kcluster trust --refresh ${target.name} -i ${this.options.inventoryFile}`,
      ].join('\n'),
    );
  }

  /** Pin a key for this host (trust on first use, or `kcluster trust`). */
  pin(target: HostKeyTarget, keyBlob: Buffer): void {
    mkdirSync(dirname(this.options.pinFile), { recursive: true, mode: 0o700 });
    const line = `${tokensFor(target).join(',')} ${keyLine(keyBlob)}\n`;
    appendFileSync(this.options.pinFile, line, { mode: 0o600 });
    chmodSync(this.options.pinFile, 0o600);
  }

  /** Forget the pinned keys of a host, so the next `pin` records its current key. */
  unpin(target: HostKeyTarget): number {
    if (!existsSync(this.options.pinFile)) return 0;
    const tokens = tokensFor(target);
    const lines = readFileSync(this.options.pinFile, 'utf8').split('\n');
    const entries = readKnownHostsFile(this.options.pinFile);
    const drop = new Set(entries.filter((e) => entryMatches(e, tokens)).map((e) => e.line));
    writeFileSync(this.options.pinFile, lines.filter((_, i) => !drop.has(i + 1)).join('\n'), { mode: 0o600 });
    return drop.size;
  }
}
