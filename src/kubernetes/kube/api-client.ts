// A small Kubernetes API client for what the controller itself does (drain, uncordon, version
// checks): HTTPS with the admin client certificate, JSON in and out, the API server's
// certificate verified against the cluster CA. Errors name the request and the API's message.
import { request } from 'node:https';

export interface ApiCredentials {
  /** https://HOST:PORT */
  readonly server: string;
  readonly caCert: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClient {
  get<T>(path: string): Promise<T>;
  patch<T>(path: string, body: unknown, type?: 'merge' | 'strategic'): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
}

/**
 * A connection reset (a kept-alive socket the API server closed, an API server restarting
 * mid-request): the request never reached a handler or is safe to repeat (GET, merge PATCH,
 * DELETE, an eviction). Refused connections and timeouts are not retried: they mean no API
 * server, and callers that probe for one must learn it at once.
 */
export function isConnectionReset(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === 'ECONNRESET' || e.code === 'EPIPE' || /socket hang up/.test(e.message ?? '');
}

const RETRY_DELAYS_MS = [250, 1000, 2000];

/** `signal` ends every request of this client at once (e.g. the probes that lost a race). */
export function apiClient(credentials: ApiCredentials, timeoutMs = 15_000, signal?: AbortSignal): ApiClient {
  const send = async <T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await sendOnce<T>(method, path, body, contentType);
      } catch (error) {
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined || !isConnectionReset(error)) throw error;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  const sendOnce = <T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const url = new URL(path, credentials.server);
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        url,
        {
          method,
          ca: credentials.caCert,
          cert: credentials.clientCert,
          key: credentials.clientKey,
          headers: { accept: 'application/json', ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) },
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              try {
                resolve((text === '' ? {} : JSON.parse(text)) as T);
              } catch {
                reject(new Error(`${method} ${url.pathname}: the API answered something that is not JSON`));
              }
              return;
            }
            let message = text.slice(0, 300);
            let reason = '';
            try {
              const status_ = JSON.parse(text) as { message?: string; reason?: string };
              message = status_.message ?? message;
              reason = status_.reason ?? '';
            } catch {
              // not a Status object: keep the raw text
            }
            reject(new ApiError(status, reason, `${method} ${url.pathname}: HTTP ${status}: ${message}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: no answer from ${credentials.server} within ${timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end(payload);
    });
  return {
    get: (path) => send('GET', path),
    patch: (path, body, type = 'merge') =>
      send('PATCH', path, body, type === 'merge' ? 'application/merge-patch+json' : 'application/strategic-merge-patch+json'),
    post: (path, body) => send('POST', path, body),
    delete: (path) => send('DELETE', path),
  };
}
