// The controller's API client against a real local HTTPS server (certificates from kcluster's
// own signer): a connection reset is retried, an HTTP error is not, a refused port fails at once.
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, ApiError } from '../../../src/kubernetes/kube/api-client.js';
import { startFakeApiServer, type FakeApiServer } from './support/fake-api-server.js';

let server: FakeApiServer;
let requests = 0;
let resetsLeft = 0;

beforeAll(async () => {
  server = await startFakeApiServer((req, res) => {
    requests++;
    if (resetsLeft > 0) {
      resetsLeft--;
      req.socket.destroy(); // what a restarting API server does to a kept-alive connection
      return;
    }
    if (req.url === '/missing') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', reason: 'NotFound', message: 'nodes "x" not found' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ gitVersion: 'v1.35.8' }));
  });
}, 120_000);
afterAll(() => server.close());

const api = () => apiClient({ server: server.url, caCert: server.ca.cert, clientCert: server.admin.cert, clientKey: server.admin.key });

describe('API client', () => {
  it('retries a request whose connection was reset, and gets the answer', async () => {
    requests = 0;
    resetsLeft = 2;
    expect(await api().get<{ gitVersion: string }>('/version')).toEqual({ gitVersion: 'v1.35.8' });
    expect(requests).toBe(3);
  });

  it('gives up after three retries', async () => {
    requests = 0;
    resetsLeft = 10;
    await expect(api().get('/version')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(requests).toBe(4);
    resetsLeft = 0;
  });

  it('does not retry an HTTP error, and names it', async () => {
    requests = 0;
    const error = await api()
      .get('/missing')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
    expect((error as Error).message).toBe('GET /missing: HTTP 404: nodes "x" not found');
    expect(requests).toBe(1);
  });

  it('ends a request at once when its signal aborts (a probe that lost the race to a server that holds the connection)', async () => {
    let accepted = 0;
    let closed = 0;
    const silent = createTcpServer((socket: Socket) => {
      accepted++; // reads, never answers
      socket.resume().on('close', () => closed++);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const stop = new AbortController();
    const started = Date.now();
    const pending = apiClient(
      {
        server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        caCert: server.ca.cert,
        clientCert: server.admin.cert,
        clientKey: server.admin.key,
      },
      15_000,
      stop.signal,
    ).get('/version');
    setTimeout(() => stop.abort(), 200);
    await expect(pending).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(2000);
    for (let i = 0; i < 40 && closed === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect([accepted, closed]).toEqual([1, 1]);
    silent.close();
  });

  it('fails at once on a refused connection (no API server: callers probe for that)', async () => {
    const started = Date.now();
    await expect(
      apiClient({ server: 'https://127.0.0.1:1', caCert: server.ca.cert, clientCert: server.admin.cert, clientKey: server.admin.key }).get('/version'),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
