// The adapter that lets forge lay out a certificate and Node sign it: what it signs verifies
// with Node's X509Certificate and with forge's own verify; a digest other than SHA-256 is refused.
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { newRsaKeyPair } from '../../../src/kubernetes/pki/key-pair.js';
import { nativeRsaSigner } from '../../../src/kubernetes/pki/native-rsa-signer.js';
import { signCertificate } from '../../../src/kubernetes/pki/sign-certificate.js';

describe('nativeRsaSigner', () => {
  it('signs what Node and forge both verify', async () => {
    const ca = await newRsaKeyPair();
    const caPem = signCertificate({ file: 'ca', commonName: 'ca', use: 'ca', days: 1 }, ca.publicKey, ca.privateKey);
    const leaf = await newRsaKeyPair();
    const leafPem = signCertificate({ file: 'l', commonName: 'leaf', use: 'client', days: 1 }, leaf.publicKey, leaf.privateKey, {
      certPem: caPem,
      keyPem: ca.privateKey,
    });
    expect(new X509Certificate(leafPem).verify(new X509Certificate(caPem).publicKey)).toBe(true);
    expect(forge.pki.certificateFromPem(caPem).verify(forge.pki.certificateFromPem(leafPem))).toBe(true);
    // Another key's signature does not verify.
    const other = await newRsaKeyPair();
    const forged = signCertificate({ file: 'l', commonName: 'leaf', use: 'client', days: 1 }, leaf.publicKey, leaf.privateKey, {
      certPem: caPem,
      keyPem: other.privateKey,
    });
    expect(new X509Certificate(forged).verify(new X509Certificate(caPem).publicKey)).toBe(false);
  }, 30_000);

  it('refuses to sign a digest other than SHA-256', async () => {
    const key = await newRsaKeyPair();
    const md = forge.md.sha1.create();
    md.update('x');
    expect(() => nativeRsaSigner(key.privateKey).sign(md, 'RSASSA-PKCS1-V1_5')).toThrow('signs SHA-256 digests only (got sha1)');
  }, 30_000);
});
