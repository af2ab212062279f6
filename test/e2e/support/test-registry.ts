// A read-only container registry for the end-to-end tests (test-only, not part of kcluster):
// serves one image from an OCI layout archive of the bundle under any repository and tag, on
// the lab bridge's address, behind HTTP Basic authentication, and counts what it served, so a
// test can prove that a node pulled through it (the OCI distribution API's pull endpoints only).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestRegistry {
  readonly url: string;
  /** Manifests and blobs served, by path, and requests refused for want of credentials. */
  readonly served: { manifests: number; blobs: number; unauthorized: number };
  close(): Promise<void>;
}

export async function startTestRegistry(archive: string, host: string, user: string, password: string): Promise<TestRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'kc-registry-'));
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { manifests: { digest: string; mediaType: string }[] };
  const top = index.manifests[0]!;
  const blob = (digest: string): Buffer => readFileSync(join(dir, 'blobs', ...digest.split(':')));
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const served = { manifests: 0, blobs: 0, unauthorized: 0 };
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== expected) {
      served.unauthorized++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="kcluster-e2e"', 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://registry').pathname;
    if (path === '/v2/' || path === '/v2') {
      res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
      return;
    }
    const manifest = /^\/v2\/.+\/manifests\/([^/]+)$/.exec(path);
    if (manifest) {
      const reference = manifest[1]!;
      if (reference.startsWith('sha256:') && reference !== top.digest) return void res.writeHead(404).end();
      const body = blob(top.digest);
      served.manifests++;
      res.writeHead(200, { 'content-type': top.mediaType, 'docker-content-digest': top.digest, 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const blobMatch = /^\/v2\/.+\/blobs\/(sha256:[0-9a-f]{64})$/.exec(path);
    if (blobMatch) {
      let body: Buffer;
      try {
        body = blob(blobMatch[1]!);
      } catch {
        return void res.writeHead(404).end();
      }
      served.blobs++;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'docker-content-digest': blobMatch[1]!, 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('test registry: no port');
  return {
    url: `http://${host}:${address.port}`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
