// Whether a stored certificate can be kept: it parses, its key matches, its CA signed it, it
// is not about to expire, and it says what the request asks (names, addresses, subject, use).
// Returns why it must be replaced, or undefined to keep it. Uses Node's X509Certificate.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { canonicalIp } from '../inventory/ipv6.js';
import { RENEW_BEFORE_DAYS, type CertificateRequest } from './certificate-request.js';

function altNames(cert: X509Certificate): { dns: Set<string>; ips: Set<string> } {
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const part of (cert.subjectAltName ?? '').split(', ')) {
    if (part.startsWith('DNS:')) dns.add(part.slice(4));
    // OpenSSL writes IPv6 addresses in full and in capitals: compared in their canonical form.
    else if (part.startsWith('IP Address:')) ips.add(canonicalIp(part.slice(11)));
  }
  return { dns, ips };
}

function subjectOf(request: CertificateRequest): string {
  return [...(request.organizations ?? []).map((o) => `O=${o}`), `CN=${request.commonName}`].join('\n');
}

export function whyReplace(
  request: CertificateRequest,
  certPem: string,
  keyPem: string,
  ca: X509Certificate | undefined,
  now = Date.now(),
): string | undefined {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    return 'the stored certificate does not parse';
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return 'the stored key does not match the certificate';
  } catch {
    return 'the stored key does not parse';
  }
  const signer = ca ?? cert;
  if (!cert.checkIssued(signer) || !cert.verify(signer.publicKey)) return ca ? 'it is not signed by the current CA' : 'it is not properly self-signed';
  if (Date.parse(cert.validTo) - now < RENEW_BEFORE_DAYS * 86_400_000) return `it expires on ${cert.validTo} (renewed ${RENEW_BEFORE_DAYS} days ahead)`;
  if (cert.subject !== subjectOf(request)) return `its subject is "${cert.subject.replace(/\n/g, ', ')}", wanted "${subjectOf(request).replace(/\n/g, ', ')}"`;
  if ((request.use === 'ca') !== cert.ca) return request.use === 'ca' ? 'it is not a CA certificate' : 'it is a CA certificate';
  const have = altNames(cert);
  // The request's addresses are canonical already (CertificateRequest.ipAddresses).
  const asked = request.ipAddresses ?? [];
  const missing = [...(request.dnsNames ?? []).filter((d) => !have.dns.has(d)), ...asked.filter((ip) => !have.ips.has(ip))];
  if (missing.length > 0) return `missing SAN ${missing.join(', ')}`;
  // A name the certificate still holds but nobody asks for any more (a removed extra SAN, an
  // address that changed) would stay valid for whoever gets it: reissue.
  const wanted = { dns: new Set(request.dnsNames ?? []), ips: new Set(asked) };
  const extra = [...[...have.dns].filter((d) => !wanted.dns.has(d)), ...[...have.ips].filter((ip) => !wanted.ips.has(ip))];
  if (extra.length > 0) return `SAN ${extra.join(', ')} no longer asked for`;
  return undefined;
}
