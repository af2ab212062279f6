// A fake Kubernetes API server for the controller-side tests: a real local HTTPS server on
// 127.0.0.1 whose certificate kcluster's own signer issues from a test CA, asking for client
// certificates like the API server does; the test gives the request handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { newRsaKeyPair } from '../../../../src/kubernetes/pki/key-pair.js';
import { signCertificate } from '../../../../src/kubernetes/pki/sign-certificate.js';
import { testCa, testLeaf, type TestPair } from '../../certs/support/test-certificates.js';

export interface FakeApiServer {
  readonly ca: TestPair;
  /** A client certificate the server accepts (CN kubernetes-admin). */
  readonly admin: TestPair;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startFakeApiServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeApiServer> {
  const ca = await testCa();
  const admin = await testLeaf(ca, 'kubernetes-admin');
  const pair = await newRsaKeyPair();
  const cert = signCertificate(
    { file: 'apiserver', commonName: 'kube-apiserver', use: 'server', days: 1, signer: 'ca', ipAddresses: ['127.0.0.1'] },
    pair.publicKey,
    pair.privateKey,
    { certPem: ca.cert, keyPem: ca.key },
  );
  const server: Server = createServer({ cert, key: pair.privateKey, ca: ca.cert, requestCert: true }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { ca, admin, port, url: `https://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
