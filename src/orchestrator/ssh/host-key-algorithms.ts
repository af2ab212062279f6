// Which host key algorithms to offer, known ones first. A host known only by its ECDSA key
// would otherwise present its Ed25519 key (ssh2's first choice) and look like a changed key;
// OpenSSH's client reorders the same way.

/** ssh2's own default order (Node 20 supports Ed25519). */
const DEFAULT_ORDER: readonly string[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** known_hosts stores RSA keys as "ssh-rsa" whatever signature algorithm is negotiated. */
function algorithmsFor(keyType: string): readonly string[] {
  return keyType === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [keyType];
}

/** The full list to offer, or undefined to keep ssh2's default (nothing known yet). */
export function hostKeyAlgorithms(knownKeyTypes: readonly string[]): string[] | undefined {
  const preferred = knownKeyTypes.flatMap(algorithmsFor).filter((a) => DEFAULT_ORDER.includes(a));
  if (preferred.length === 0) return undefined;
  return [...new Set([...preferred, ...DEFAULT_ORDER])];
}
