// A TCP proxy on loopback in front of a server, whose link the test cuts and heals: the store
// unreachable mid-run, then back (every connection reset while cut; the same port after).
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface CuttableProxy {
  readonly port: number;
  /** Resets every connection and stops accepting new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

export async function cuttableProxy(targetPort: number): Promise<CuttableProxy> {
  const sockets = new Set<Socket>();
  const makeServer = (): Server =>
    createServer((client) => {
      const upstream = connect({ host: '127.0.0.1', port: targetPort });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
  let server = makeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const stop = async (): Promise<void> => {
    for (const s of sockets) s.resetAndDestroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return {
    port,
    cut: stop,
    heal: async () => {
      server = makeServer();
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: stop,
  };
}
