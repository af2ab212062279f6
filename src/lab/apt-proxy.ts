// A small caching HTTP proxy for apt inside lab hosts. Listens only on the lab bridge and
// forwards only to the mirror hosts named in this machine's own apt sources; immutable
// pool/*.deb files are cached on disk. Run as: node apt-proxy.js <listen-ip> <port> <cache-dir>
import { createReadStream, existsSync, mkdirSync, createWriteStream, rename, statSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { dirname, join } from 'node:path';
import { machineAptMirrors } from './apt-sources.js';

export function startAptProxy(listenIp: string, port: number, cacheDir: string): void {
  const allowed = new Set(machineAptMirrors().map((u) => new URL(u).hostname));
  createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URL required\n');
      return;
    }
    if ((req.method !== 'GET' && req.method !== 'HEAD') || url.protocol !== 'http:' || !allowed.has(url.hostname)) {
      res.writeHead(403).end("not allowed: this proxy forwards only to the machine's own Debian mirrors\n");
      return;
    }
    const cacheable = req.method === 'GET' && /\/pool\/.*\.deb$/.test(url.pathname) && !url.pathname.includes('..');
    const file = join(cacheDir, url.hostname, decodeURIComponent(url.pathname));
    if (cacheable && existsSync(file)) {
      res.writeHead(200, { 'content-type': 'application/vnd.debian.binary-package', 'content-length': statSync(file).size });
      createReadStream(file).pipe(res);
      return;
    }
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: url.host };
    delete headers['proxy-connection'];
    const upstream = request({ host: url.hostname, port: url.port || 80, path: url.pathname + url.search, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (cacheable && up.statusCode === 200) {
        mkdirSync(dirname(file), { recursive: true });
        const tmp = `${file}.${process.pid}.${Date.now()}.part`;
        const out = createWriteStream(tmp);
        up.pipe(out);
        out.on('finish', () => rename(tmp, file, () => undefined));
      }
      up.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
    req.pipe(upstream);
  }).listen(port, listenIp, () => process.stdout.write(`apt proxy on ${listenIp}:${port}, cache ${cacheDir}\n`));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [ip = '10.231.0.1', port = '3142', cache = '/var/cache/kcluster/apt'] = process.argv.slice(2);
  startAptProxy(ip, Number(port), cache);
}
