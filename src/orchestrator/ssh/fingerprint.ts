// Host key blobs (SSH wire format) and their OpenSSH-style fingerprints.
import { createHash } from 'node:crypto';

/** "SHA256:<base64 without padding>", exactly as `ssh-keygen -l` prints it. */
export function fingerprintSha256(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The algorithm name at the start of a key blob, e.g. "ssh-ed25519". */
export function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const length = keyBlob.readUInt32BE(0);
  return keyBlob.subarray(4, 4 + length).toString('latin1');
}

/** "ssh-ed25519 AAAA..." as known_hosts stores a key. */
export function keyLine(keyBlob: Buffer): string {
  return `${keyType(keyBlob)} ${keyBlob.toString('base64')}`;
}
