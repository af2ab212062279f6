// The soak's certificate invariant, on certificates made by kcluster's own signer: a leaf of the
// current CA passes; one of a retired CA, an expired one and an unknown CA file are named; the
// kubelet's self-signed serving certificate is the one exception.
import { describe, expect, it } from 'vitest';
import { newRsaKeyPair } from '../../../src/kubernetes/pki/key-pair.js';
import { signCertificate } from '../../../src/kubernetes/pki/sign-certificate.js';
import { certificateChainProblems, KUBELET_SELF_SIGNED, parseCertificateSections } from '../../soak/certificate-chains.js';

async function ca(name: string) {
  const pair = await newRsaKeyPair();
  return { certPem: signCertificate({ file: name, commonName: name, use: 'ca', days: 10 }, pair.publicKey, pair.privateKey), keyPem: pair.privateKey };
}
async function leaf(name: string, signer?: { certPem: string; keyPem: string }) {
  const pair = await newRsaKeyPair();
  return signCertificate({ file: name, commonName: name, use: 'client', days: 1 }, pair.publicKey, pair.privateKey, signer);
}

describe('certificateChainProblems', () => {
  it('passes leaves of the current CAs and the CA files themselves, names the rest by host and path', async () => {
    const current = await ca('kubernetes');
    const etcd = await ca('etcd-ca');
    const retired = await ca('kubernetes-old');
    const certificates = parseCertificateSections(
      [
        '==> /etc/kubernetes/pki/ca.crt',
        current.certPem,
        '==> /etc/kubernetes/pki/apiserver.crt',
        await leaf('apiserver', current),
        '==> /etc/kubernetes/pki/etcd/server.crt',
        await leaf('etcd-server', etcd),
        '==> /etc/kubernetes/pki/front-proxy-client.crt',
        await leaf('front-proxy-client', retired),
        '==> /etc/kubernetes/pki/old-ca.crt',
        retired.certPem,
        `==> ${KUBELET_SELF_SIGNED}`,
        await leaf('kubelet-self'),
        '==> /var/lib/kubelet/pki/other-self-signed.crt',
        await leaf('someone'),
        '==> /etc/kubernetes/pki/empty.crt',
        '',
      ].join('\n'),
    );
    expect(certificates.map((c) => c.path)).toHaveLength(8);
    const problems = certificateChainProblems('cp1', certificates, [current.certPem, etcd.certPem]);
    expect(problems).toEqual([
      'cp1:/etc/kubernetes/pki/front-proxy-client.crt: not signed by a current CA (issuer CN=kubernetes-old)',
      'cp1:/etc/kubernetes/pki/old-ca.crt: a CA the state folder does not hold (CN=kubernetes-old)',
      'cp1:/var/lib/kubelet/pki/other-self-signed.crt: not signed by a current CA (issuer CN=someone)',
      'cp1:/etc/kubernetes/pki/empty.crt: no certificate in it',
    ]);
  });

  it('names an expired leaf', async () => {
    const current = await ca('kubernetes');
    const certificates = [{ path: '/etc/kubernetes/pki/admin.crt', pem: await leaf('admin', current) }];
    expect(certificateChainProblems('w1', certificates, [current.certPem])).toEqual([]);
    const later = new Date(Date.now() + 3 * 86_400_000);
    expect(certificateChainProblems('w1', certificates, [current.certPem], later)[0]).toMatch(/^w1:\/etc\/kubernetes\/pki\/admin.crt: expired /);
  });
});
