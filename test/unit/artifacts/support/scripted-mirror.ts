// A real loopback HTTP server (127.0.0.1, port 0) standing in for a flaky release mirror: it
// serves one body at any path, honours Range unless told not to, and misbehaves on purpose
// according to a script, one step per request (the last step repeats). Every request is kept,
// with its Range header, so a test can count exactly what the client asked for.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export type MirrorStep =
  /** TCP reset before any header: the client sees "read ECONNRESET". */
  | 'reset'
  /** The headers and `bytes` of the body, then the connection closed. */
  | { readonly cutAfter: number }
  /** An HTTP status with no file. */
  | { readonly status: number }
  /** The body; a Range request gets 206 and the rest. */
  | 'serve'
  /** The whole body with 200, whatever Range asked. */
  | 'serve-ignoring-range';

export interface SeenRequest {
  readonly path: string;
  readonly range: string | undefined;
}

export interface ScriptedMirror {
  readonly url: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

function serve(req: IncomingMessage, res: ServerResponse, body: Buffer, step: MirrorStep): void {
  if (step === 'reset') {
    req.socket.resetAndDestroy();
    return;
  }
  if (typeof step === 'object' && 'status' in step) {
    res.writeHead(step.status).end(`HTTP ${step.status}`);
    return;
  }
  if (typeof step === 'object') {
    res.writeHead(200, { 'content-length': body.length });
    res.write(body.subarray(0, step.cutAfter), () => req.socket.destroy());
    return;
  }
  const range = step === 'serve' ? /^bytes=(\d+)-$/.exec(req.headers.range ?? '') : null;
  const start = range ? Number(range[1]) : 0;
  if (range && start >= body.length) {
    res.writeHead(416).end();
    return;
  }
  const headers = range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {};
  res.writeHead(range ? 206 : 200, { 'content-length': body.length - start, ...headers }).end(body.subarray(start));
}

export async function startScriptedMirror(body: Buffer, script: readonly MirrorStep[]): Promise<ScriptedMirror> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '/', range: req.headers.range });
    serve(req, res, body, script[Math.min(seen.length, script.length) - 1] ?? 'serve');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the scripted mirror has no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
