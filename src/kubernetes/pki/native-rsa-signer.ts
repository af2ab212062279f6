// The one adapter between node-forge and Node's crypto: forge lays out a certificate and asks a
// private key object to `sign(md)`; this object answers with Node's native RSA (PKCS#1 v1.5
// over a SHA-256 DigestInfo) instead of forge's pure-JS RSA, which made signing a visible part
// of generating a large cluster's PKI. forge types that argument as its own RSA private key:
// the cast is here and nowhere else, and test/unit/pki/native-rsa-signer.test.ts holds the
// signatures to what both forge and Node verify.
import { constants, privateEncrypt } from 'node:crypto';
import forge from 'node-forge';

/** DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-256 (RFC 8017, section 9.2). */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');

/** What forge's `certificate.sign(key, sha256)` needs of `key`, backed by Node's RSA with this PEM key. */
export function nativeRsaSigner(keyPem: string): forge.pki.rsa.PrivateKey {
  const sign = (md: forge.md.MessageDigest): string => {
    if (md.algorithm !== 'sha256') throw new Error(`nativeRsaSigner signs SHA-256 digests only (got ${md.algorithm})`);
    return privateEncrypt(
      { key: keyPem, padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([SHA256_DIGEST_INFO, Buffer.from(md.digest().getBytes(), 'binary')]),
    ).toString('binary');
  };
  return { sign } as unknown as forge.pki.rsa.PrivateKey;
}
