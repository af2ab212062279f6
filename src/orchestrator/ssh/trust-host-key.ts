// The decision behind `kcluster trust`: given the key a host presents now, pin it, keep it,
// re-key it (only with refresh, and only our own pins), or refuse. Library callers get the
// same outcome the command prints.
import { fingerprintSha256, keyType } from './fingerprint.js';
import type { HostKeyMismatchError, HostKeyPolicy, HostKeyTarget } from './host-key-policy.js';

export type TrustOutcome =
  | { readonly kind: 'already-trusted'; readonly fingerprint: string; readonly keyType: string; readonly where: string }
  | { readonly kind: 'pinned'; readonly fingerprint: string; readonly keyType: string; readonly where: string }
  | {
      readonly kind: 're-keyed';
      readonly fingerprint: string;
      readonly keyType: string;
      readonly where: string;
      readonly previous: string;
      readonly forgotten: number;
    }
  | { readonly kind: 'refused'; readonly fingerprint: string; readonly keyType: string; readonly error: HostKeyMismatchError; readonly hint?: string };

export function trustHostKey(policy: HostKeyPolicy, target: HostKeyTarget, key: Buffer, refresh: boolean): TrustOutcome {
  const fingerprint = fingerprintSha256(key);
  const type = keyType(key);
  const pinFile = policy.options.pinFile;
  const found = policy.lookup(target, key);
  switch (found.kind) {
    case 'match':
      return { kind: 'already-trusted', fingerprint, keyType: type, where: `${found.entry.file}:${found.entry.line}` };
    case 'unknown':
      policy.pin(target, key);
      return { kind: 'pinned', fingerprint, keyType: type, where: pinFile };
    case 'revoked':
      return { kind: 'refused', fingerprint, keyType: type, error: found.error };
    case 'mismatch':
      if (found.source !== 'pinned') {
        // The user's own known_hosts is theirs to edit: we never rewrite it.
        return {
          kind: 'refused',
          fingerprint,
          keyType: type,
          error: found.error,
          hint: `${found.entry.file} is not kcluster's pin file, so --refresh does not change it`,
        };
      }
      if (!refresh) return { kind: 'refused', fingerprint, keyType: type, error: found.error };
      return {
        kind: 're-keyed',
        fingerprint,
        keyType: type,
        where: pinFile,
        previous: fingerprintSha256(Buffer.from(found.entry.keyBase64, 'base64')),
        forgotten: policy.replacePin(target, key),
      };
  }
}
