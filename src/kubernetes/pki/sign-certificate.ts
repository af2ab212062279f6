// Create and sign one X.509 certificate with node-forge: random positive serial, subject and
// key identifiers, key usages by purpose, DNS and IP subject alternative names.
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';
import type { CertificateRequest } from './certificate-request.js';
import { nativeRsaSigner } from './native-rsa-signer.js';

export interface Signer {
  readonly certPem: string;
  readonly keyPem: string;
}

function subjectAttributes(request: CertificateRequest): forge.pki.CertificateField[] {
  return [...(request.organizations ?? []).map((value) => ({ name: 'organizationName', value })), { name: 'commonName', value: request.commonName }];
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f; // positive
  return bytes.toString('hex');
}

/** Sign `publicKeyPem` for `request`, by `signer` (or self-signed with `ownKeyPem` for a CA). */
export function signCertificate(request: CertificateRequest, publicKeyPem: string, ownKeyPem: string, signer?: Signer): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKeyPem);
  cert.serialNumber = serialNumber();
  const now = Date.now();
  // A little in the past: nodes whose clocks lag slightly still accept it.
  cert.validity.notBefore = new Date(now - 5 * 60_000);
  cert.validity.notAfter = new Date(now + request.days * 86_400_000);
  cert.setSubject(subjectAttributes(request));
  const issuer = signer ? forge.pki.certificateFromPem(signer.certPem) : undefined;
  cert.setIssuer(issuer ? issuer.subject.attributes : subjectAttributes(request));
  const isCa = request.use === 'ca';
  const extensions: Record<string, unknown>[] = [
    { name: 'basicConstraints', cA: isCa, critical: true },
    isCa
      ? { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
      : { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ];
  if (!isCa) {
    extensions.push({ name: 'extKeyUsage', serverAuth: request.use !== 'client', clientAuth: request.use !== 'server' });
  }
  const altNames = [...(request.dnsNames ?? []).map((value) => ({ type: 2, value })), ...(request.ipAddresses ?? []).map((ip) => ({ type: 7, ip }))];
  if (altNames.length > 0) extensions.push({ name: 'subjectAltName', altNames });
  const authority = issuer ?? cert;
  extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: authority.generateSubjectKeyIdentifier().getBytes() });
  cert.setExtensions(extensions);
  cert.sign(nativeRsaSigner(signer ? signer.keyPem : ownKeyPem), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}
