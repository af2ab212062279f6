// A forwarding HTTP proxy for the end-to-end tests (test-only, not part of kcluster): on the
// lab bridge's address, it forwards absolute-form requests (http://host:port/path, what a client
// sends to an HTTP proxy) and tunnels CONNECT (https), and records each destination, so a test
// can show what went through it (a registry pull from a node behind cluster.proxy) and what did
// not (the cluster's own traffic, which NO_PROXY keeps direct).
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface TestHttpProxy {
  /** http://address:port, for cluster.proxy. */
  readonly url: string;
  /** The host:port of each request or tunnel, in the order they came. */
  readonly destinations: string[];
  close(): Promise<void>;
}

/** The request's headers without those addressed to the proxy itself. */
function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { 'proxy-connection': _connection, 'proxy-authorization': _authorization, ...rest } = headers;
  return rest;
}

export async function startTestHttpProxy(address: string): Promise<TestHttpProxy> {
  const destinations: string[] = [];
  const tunnels = new Set<Socket>();
  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('an HTTP proxy takes absolute-form requests (http://host:port/path)\n');
      return;
    }
    destinations.push(target.host);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port === '' ? 80 : Number(target.port),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: forwardedHeaders(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(`${error.message}\n`);
    });
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const hostPort = req.url ?? '';
    destinations.push(hostPort);
    const colon = hostPort.lastIndexOf(':');
    const upstream = connect(Number(hostPort.slice(colon + 1)), hostPort.slice(0, colon), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(client);
    client.on('close', () => (tunnels.delete(client), upstream.destroy()));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, address, resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${address}:${port}`,
    destinations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of tunnels) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
