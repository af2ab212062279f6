// Host key verification: the user's known_hosts and the inventory's, else trust on first use
// with the key pinned in the state folder. A mismatch refuses the host, never silently.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fingerprintSha256, keyLine, keyType } from './fingerprint.js';
import { entryMatches, hostToken, readKnownHostsFile, type KnownHostEntry } from './known-hosts.js';
import { mismatchError, revokedError, unknownKeyStrictError, type HostKeyMismatchError, type HostKeyTarget } from './host-key-errors.js';

export { HostKeyMismatchError, type HostKeyTarget } from './host-key-errors.js';

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

export type HostKeySource = 'known_hosts' | 'pinned';

/** What the files say about a presented key, without pinning anything. */
export type HostKeyLookup =
  | { readonly kind: 'match'; readonly source: HostKeySource; readonly entry: KnownHostEntry }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'mismatch' | 'revoked'; readonly source: HostKeySource; readonly entry: KnownHostEntry; readonly error: HostKeyMismatchError };

export type HostKeyVerdict =
  | { readonly ok: true; readonly source: HostKeySource | 'pinned-now'; readonly fingerprint: string }
  | { readonly ok: false; readonly error: HostKeyMismatchError };

/** The names a host is pinned and looked up under: its address and its inventory name. */
function tokensFor(target: HostKeyTarget): string[] {
  return [...new Set([hostToken(target.address, target.port), hostToken(target.name, target.port)])];
}

export class HostKeyPolicy {
  constructor(readonly options: HostKeyPolicyOptions) {}

  private sources(): readonly (readonly [readonly string[], HostKeySource])[] {
    return [
      [this.options.knownHostsFiles, 'known_hosts'],
      [[this.options.pinFile], 'pinned'],
    ];
  }

  private entries(files: readonly string[], target: HostKeyTarget): KnownHostEntry[] {
    const tokens = tokensFor(target);
    return files.flatMap((f) => readKnownHostsFile(f)).filter((e) => entryMatches(e, tokens));
  }

  lookup(target: HostKeyTarget, keyBlob: Buffer): HostKeyLookup {
    const type = keyType(keyBlob);
    const base64 = keyBlob.toString('base64');
    const fingerprint = fingerprintSha256(keyBlob);
    // The user's own files speak first: a host known there is never re-pinned by us.
    for (const [files, source] of this.sources()) {
      const entries = this.entries(files, target);
      const revoked = entries.find((e) => e.revoked && e.keyBase64 === base64);
      if (revoked) return { kind: 'revoked', source, entry: revoked, error: revokedError(target, revoked, fingerprint) };
      const live = entries.filter((e) => !e.revoked);
      const match = live.find((e) => e.keyType === type && e.keyBase64 === base64);
      if (match) return { kind: 'match', source, entry: match };
      // Known, but not with this key: a key of the same type is the clearest one to show.
      const expected = live.find((e) => e.keyType === type) ?? live[0];
      if (expected) {
        return {
          kind: 'mismatch',
          source,
          entry: expected,
          error: mismatchError(target, expected, fingerprint, type, this.options.pinFile, this.options.inventoryFile),
        };
      }
    }
    return { kind: 'unknown' };
  }

  /** Verify a presented key; an unknown one is pinned (trust on first use) unless strict. */
  check(target: HostKeyTarget, keyBlob: Buffer): HostKeyVerdict {
    const fingerprint = fingerprintSha256(keyBlob);
    const found = this.lookup(target, keyBlob);
    switch (found.kind) {
      case 'match':
        return { ok: true, source: found.source, fingerprint };
      case 'mismatch':
      case 'revoked':
        return { ok: false, error: found.error };
      case 'unknown':
        if (this.options.strict) return { ok: false, error: unknownKeyStrictError(target, fingerprint, this.options.inventoryFile) };
        this.pin(target, keyBlob);
        return { ok: true, source: 'pinned-now', fingerprint };
    }
  }

  /** Key types known for a host, so the handshake can ask for one of those first (as OpenSSH does). */
  knownKeyTypes(target: HostKeyTarget): string[] {
    const types = this.sources().flatMap(([files]) =>
      this.entries(files, target)
        .filter((e) => !e.revoked)
        .map((e) => e.keyType),
    );
    return [...new Set(types)];
  }

  /** Pin a key for this host (trust on first use, or `kcluster trust`). */
  pin(target: HostKeyTarget, keyBlob: Buffer): void {
    this.preparePinFolder();
    const current = this.readPins();
    const separator = current === '' || current.endsWith('\n') ? '' : '\n';
    this.writePins(`${current}${separator}${tokensFor(target).join(',')} ${keyLine(keyBlob)}\n`);
  }

  /** Forget the pinned keys of a host; returns how many lines were removed. */
  unpin(target: HostKeyTarget): number {
    if (!existsSync(this.options.pinFile)) return 0;
    const tokens = tokensFor(target);
    const drop = new Set(
      readKnownHostsFile(this.options.pinFile)
        .filter((e) => entryMatches(e, tokens))
        .map((e) => e.line),
    );
    if (drop.size === 0) return 0;
    const kept = this.readPins()
      .split('\n')
      .filter((_, i) => !drop.has(i + 1));
    this.writePins(kept.join('\n'));
    return drop.size;
  }

  /** Replace a host's pins with this key (a deliberate re-key); returns how many were forgotten. */
  replacePin(target: HostKeyTarget, keyBlob: Buffer): number {
    const removed = this.unpin(target);
    this.pin(target, keyBlob);
    return removed;
  }

  private preparePinFolder(): void {
    const folder = dirname(this.options.pinFile);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
  }

  private readPins(): string {
    return existsSync(this.options.pinFile) ? readFileSync(this.options.pinFile, 'utf8') : '';
  }

  /** Whole-file replace through a temp file: a crash never leaves half a pin file. */
  private writePins(text: string): void {
    this.preparePinFolder();
    const temp = `${this.options.pinFile}.${process.pid}.tmp`;
    writeFileSync(temp, text, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, this.options.pinFile);
  }
}
