// Invariant: every certificate on a host chains to a CA the state folder holds now. A host's
// certificates arrive as "==> PATH" sections of PEM text; each leaf (not a CA) must be issued by
// one of the current CAs (name and signature), and be valid now. The kubelet's own self-signed
// serving certificate (kubelet.crt, made by the kubelet when it has no other) is the one
// exception, named as such. Pure: text and PEM in, problems out.
import { X509Certificate } from 'node:crypto';

/** The kubelet writes this self-signed serving certificate itself; nothing of kcluster's signs it. */
export const KUBELET_SELF_SIGNED = '/var/lib/kubelet/pki/kubelet.crt';

export interface HostCertificate {
  readonly path: string;
  readonly pem: string;
}

/** "==> PATH" headers, each followed by the file's PEM blocks (the first certificate of each file is checked). */
export function parseCertificateSections(out: string): HostCertificate[] {
  const sections: HostCertificate[] = [];
  let current: { path: string; lines: string[] } | undefined;
  const close = (): void => {
    if (current) sections.push({ path: current.path, pem: current.lines.join('\n') });
  };
  for (const line of out.split('\n')) {
    if (line.startsWith('==> ')) {
      close();
      current = { path: line.slice(4).trim(), lines: [] };
    } else if (current) current.lines.push(line);
  }
  close();
  return sections;
}

const firstCertificate = (pem: string): string | undefined => /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(pem)?.[0];

/** The problems of one host's certificates against the current CAs (empty: all chain). */
export function certificateChainProblems(host: string, certificates: readonly HostCertificate[], currentCas: readonly string[], now = new Date()): string[] {
  const cas = currentCas.map((pem) => new X509Certificate(pem));
  const problems: string[] = [];
  for (const { path, pem } of certificates) {
    const text = firstCertificate(pem);
    if (text === undefined) {
      problems.push(`${host}:${path}: no certificate in it`);
      continue;
    }
    const cert = new X509Certificate(text);
    if (cert.ca) {
      // A CA file on the host: it must be one the state folder holds (a bundle lists the signing CA first).
      if (!cas.some((ca) => ca.fingerprint256 === cert.fingerprint256))
        problems.push(`${host}:${path}: a CA the state folder does not hold (${cert.subject.replace(/\n/g, ', ')})`);
      continue;
    }
    if (Date.parse(cert.validTo) < now.getTime()) problems.push(`${host}:${path}: expired ${cert.validTo}`);
    if (path === KUBELET_SELF_SIGNED && cert.issuer === cert.subject && cert.verify(cert.publicKey)) continue;
    if (!cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey)))
      problems.push(`${host}:${path}: not signed by a current CA (issuer ${cert.issuer.replace(/\n/g, ', ')})`);
  }
  return problems;
}
