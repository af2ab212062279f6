// Real certificates for the certs tests, made with kcluster's own signer: a CA, leaves it
// signs, each with its key. Generated once per test file (RSA key generation is the cost).
import { newRsaKeyPair } from '../../../../src/kubernetes/pki/key-pair.js';
import { signCertificate } from '../../../../src/kubernetes/pki/sign-certificate.js';
import type { CertificateRequest } from '../../../../src/kubernetes/pki/certificate-request.js';

export interface TestPair {
  readonly cert: string;
  readonly key: string;
}

export async function testCa(commonName = 'kubernetes', days = 3650): Promise<TestPair> {
  const pair = await newRsaKeyPair();
  return { cert: signCertificate({ file: 'ca', commonName, use: 'ca', days }, pair.publicKey, pair.privateKey), key: pair.privateKey };
}

export async function testLeaf(ca: TestPair, commonName: string, days = 365, use: CertificateRequest['use'] = 'client'): Promise<TestPair> {
  const pair = await newRsaKeyPair();
  const cert = signCertificate({ file: commonName, commonName, use, days, signer: 'ca' }, pair.publicKey, pair.privateKey, {
    certPem: ca.cert,
    keyPem: ca.key,
  });
  return { cert, key: pair.privateKey };
}

export const DAY_MS = 86_400_000;
