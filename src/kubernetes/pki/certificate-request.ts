// What a certificate must say: who it names, what it may do, which names and addresses it
// covers, how long it lives. Comparing a stored certificate with its request decides reuse.

export type CertificateUse = 'ca' | 'server' | 'client' | 'server-and-client';

export interface CertificateRequest {
  /** File stem under <stateDir>/pki, e.g. "apiserver", "etcd/server-cp1". */
  readonly file: string;
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly use: CertificateUse;
  readonly dnsNames?: readonly string[];
  /** In canonical text (IPv6 as canonicalIp writes it), as the reuse check compares them. */
  readonly ipAddresses?: readonly string[];
  /** The CA's file stem that signs it (absent for a CA: self-signed). */
  readonly signer?: string;
  readonly days: number;
}

export const CA_DAYS = 3650;
export const LEAF_DAYS = 365;
/** A certificate closer than this to its end is renewed on the next apply. */
export const RENEW_BEFORE_DAYS = 30;
