#!/usr/bin/env node
// A read-only container registry for kcluster's tests (test-only, not part of kcluster): the
// pull side of the OCI distribution API (GET and HEAD of /v2/, manifests by tag or digest,
// blobs by digest) over plain HTTP, serving OCI image layouts (as bundle/mkimage writes them),
// optionally behind HTTP Basic authentication. It counts what it served and what it refused.
//
// As a program, for the Conformance run (a registry mirror of kcluster.local for the nodes):
//   node test/conformance/registry.mjs IMAGES_DIR ADDRESS PORT
// serves every image of IMAGES_DIR/images.txt ("REFERENCE FILE DIGEST" lines, FILE an OCI
// layout archive in IMAGES_DIR) under its reference's repository and tag, prints
// "registry: listening on http://ADDRESS:PORT (N images)" and runs until SIGTERM or SIGINT.
// As a module: startRegistry() (see registry.d.mts), which the end-to-end tests use.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Unpacks an OCI layout archive into a new folder; returns its one manifest's digest and media type, its blob reader, and remove(). */
export function openLayout(archive) {
  const dir = mkdtempSync(join(tmpdir(), 'kc-registry-'));
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  const top = index.manifests[0];
  return {
    digest: top.digest,
    mediaType: top.mediaType,
    blob: (digest) => readFileSync(join(dir, 'blobs', ...digest.split(':'))),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function startRegistry({ host, port = 0, layoutFor, credentials }) {
  const expected = credentials ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}` : undefined;
  const served = { manifests: 0, blobs: 0, unauthorized: 0, notFound: 0 };
  const send = (req, res, type, digest, body) => {
    res.writeHead(200, { 'content-type': type, 'docker-content-digest': digest, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server = createServer((req, res) => {
    if (expected !== undefined && req.headers.authorization !== expected) {
      served.unauthorized++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="kcluster-test"', 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://registry').pathname;
    if (path === '/v2/' || path === '/v2') {
      res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
      return;
    }
    const manifest = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(path);
    const blob = /^\/v2\/(.+)\/blobs\/(sha256:[0-9a-f]{64})$/.exec(path);
    const layout = manifest ? layoutFor(manifest[1], manifest[2]) : blob ? layoutFor(blob[1], undefined) : undefined;
    try {
      if (manifest && layout && (!manifest[2].startsWith('sha256:') || manifest[2] === layout.digest)) {
        served.manifests++;
        return send(req, res, layout.mediaType, layout.digest, layout.blob(layout.digest));
      }
      if (blob && layout) {
        const body = layout.blob(blob[2]);
        served.blobs++;
        return send(req, res, 'application/octet-stream', blob[2], body);
      }
    } catch {
      // a digest the layout does not hold: 404 below
    }
    served.notFound++;
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"NOT_FOUND"}]}');
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The images of an images.txt, by repository (the reference without its registry host) and tag. */
function layoutsOfImagesDir(dir) {
  const byRepository = new Map();
  for (const line of readFileSync(join(dir, 'images.txt'), 'utf8').split('\n')) {
    const [reference, file] = line.trim().split(/\s+/);
    if (!reference || !file) continue;
    const withoutHost = reference.slice(reference.indexOf('/') + 1);
    const colon = withoutHost.lastIndexOf(':');
    const repository = withoutHost.slice(0, colon);
    const tags = byRepository.get(repository) ?? new Map();
    tags.set(withoutHost.slice(colon + 1), openLayout(join(dir, file)));
    byRepository.set(repository, tags);
  }
  return byRepository;
}

function blobFrom(layouts, digest) {
  for (const layout of layouts) {
    try {
      return layout.blob(digest);
    } catch {
      // not in this one
    }
  }
  throw new Error(`no blob ${digest}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, host, port] = process.argv.slice(2);
  if (!dir || !host || !port) {
    console.error('usage: node test/conformance/registry.mjs IMAGES_DIR ADDRESS PORT');
    process.exit(2);
  }
  const byRepository = layoutsOfImagesDir(dir);
  // A blob request names its repository only: any tag of it may hold the blob.
  const layoutFor = (repository, reference) => {
    const tags = byRepository.get(repository);
    if (!tags) return undefined;
    const layouts = [...tags.values()];
    if (reference === undefined) return { blob: (digest) => blobFrom(layouts, digest) };
    return tags.get(reference) ?? layouts.find((l) => l.digest === reference);
  };
  const registry = await startRegistry({ host, port: Number(port), layoutFor });
  const count = [...byRepository.values()].reduce((n, tags) => n + tags.size, 0);
  console.log(`registry: listening on ${registry.url} (${count} images)`);
  const stop = async () => {
    await registry.close();
    for (const tags of byRepository.values()) for (const layout of tags.values()) layout.remove();
    console.log(`registry: served ${registry.served.manifests} manifests, ${registry.served.blobs} blobs; ${registry.served.notFound} not found`);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
