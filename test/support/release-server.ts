// A loopback HTTP server standing in for the official release locations in tests: serves a
// directory tree, honours Range requests, counts requests per path, and can be told to serve
// a corrupted body or to cut a response short. Listens on 127.0.0.1 only.
import { createReadStream, statSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';

export interface ReleaseServer {
  readonly url: string;
  readonly requests: Map<string, number>;
  readonly ranges: string[];
  /** Paths whose first response is cut after this many bytes. */
  readonly cutOnce: Map<string, number>;
  close(): Promise<void>;
}

export async function startReleaseServer(root: string): Promise<ReleaseServer> {
  const requests = new Map<string, number>();
  const ranges: string[] = [];
  const cutOnce = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!));
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const file = join(root, path);
    if (path.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    const size = statSync(file).size;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (req.headers.range) ranges.push(`${path} ${req.headers.range}`);
    const start = range ? Number(range[1]) : 0;
    if (start >= size && range) {
      res.writeHead(416).end();
      return;
    }
    const cut = cutOnce.get(path);
    if (cut !== undefined) {
      cutOnce.delete(path);
      res.writeHead(200, { 'content-length': size });
      createReadStream(file, { start: 0, end: cut - 1 })
        .on('end', () => res.destroy())
        .pipe(res, { end: false });
      return;
    }
    res.writeHead(range ? 206 : 200, { 'content-length': size - start, ...(range ? { 'content-range': `bytes ${start}-${size - 1}/${size}` } : {}) });
    createReadStream(file, { start }).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    ranges,
    cutOnce,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
