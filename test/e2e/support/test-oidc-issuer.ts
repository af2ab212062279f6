// An OpenID Connect issuer for the end-to-end tests (test-only, not part of kcluster): serves
// its discovery document and signing keys over HTTPS on the lab bridge's address, with a
// certificate from its own throw-away CA (the file the API server's --oidc-ca-file must hold),
// and signs ID tokens (RS256) for whatever subject and groups a test asks. It counts the
// requests, so a test can show the API servers fetched its keys.
import { execFileSync } from 'node:child_process';
import { createSign, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestOidcIssuer {
  readonly issuerUrl: string;
  /** The CA certificate (PEM) that signed the issuer's serving certificate. */
  readonly caFile: string;
  readonly requests: { discovery: number; keys: number };
  /** An ID token for `subject` in `groups`, for `audience`, valid for 10 minutes. */
  token(audience: string, subject: string, groups: readonly string[]): string;
  close(): Promise<void>;
}

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** A CA and a serving certificate for `ip`, both made by openssl in `dir`. */
function servingCertificate(dir: string, ip: string): { ca: string; cert: string; key: string } {
  const o = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  o(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=kcluster-e2e-oidc-ca',
  );
  o('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${ip}`);
  writeFileSync(join(dir, 'san.ext'), `subjectAltName=IP:${ip}\nextendedKeyUsage=serverAuth\n`);
  o('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'san.ext');
  return { ca: join(dir, 'ca.crt'), cert: join(dir, 'server.crt'), key: join(dir, 'server.key') };
}

function signJwt(key: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(key);
  return `${signingInput}.${base64url(signature)}`;
}

export async function startTestOidcIssuer(host: string): Promise<TestOidcIssuer> {
  const dir = mkdtempSync(join(tmpdir(), 'kc-oidc-'));
  const tls = servingCertificate(dir, host);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  const requests = { discovery: 0, keys: 0 };
  let issuerUrl = '';
  const server: Server = createServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://issuer').pathname;
    if (path === '/.well-known/openid-configuration') {
      requests.discovery++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: issuerUrl,
          jwks_uri: `${issuerUrl}/keys`,
          id_token_signing_alg_values_supported: ['RS256'],
          response_types_supported: ['id_token'],
          subject_types_supported: ['public'],
        }),
      );
      return;
    }
    if (path === '/keys') {
      requests.keys++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('test OIDC issuer: no port');
  issuerUrl = `https://${host}:${address.port}`;
  return {
    issuerUrl,
    caFile: tls.ca,
    requests,
    token: (audience, subject, groups) => {
      const now = Math.floor(Date.now() / 1000);
      return signJwt(privateKey, kid, { iss: issuerUrl, aud: audience, sub: subject, groups, iat: now, nbf: now - 5, exp: now + 600 });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
