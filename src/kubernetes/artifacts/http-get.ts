// One HTTP(S) GET with its redirects followed. A connection that drops, is refused or goes
// silent fails with a TransientHttpError (worth another attempt); anything else (a bad URL,
// an unknown host, a certificate refused, Ctrl-C) with a final ArtifactError.
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { ArtifactError } from './artifact.js';
import { isTransientNetworkError, TransientHttpError } from './http-retry.js';

const MAX_REDIRECTS = 5;
const IDLE_TIMEOUT_MS = 30_000;

function request(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? httpsGet : url.startsWith('http:') ? httpGet : undefined;
    if (!get) {
      reject(new ArtifactError(`${url}: only http:// and https:// URLs can be downloaded`));
      return;
    }
    const req = get(url, { headers, ...(signal ? { signal } : {}) }, resolve);
    req.setTimeout(IDLE_TIMEOUT_MS, () => req.destroy(Object.assign(new Error(`no data for ${IDLE_TIMEOUT_MS / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', (error) =>
      reject(
        signal?.aborted !== true && isTransientNetworkError(error) ? new TransientHttpError(error.message) : new ArtifactError(`${url}: ${error.message}`),
      ),
    );
  });
}

/** GET with redirects; the final response (any status) and its URL. */
export async function follow(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<{ response: IncomingMessage; url: string }> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await request(current, headers, signal);
    const location = response.headers.location;
    if (response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      current = new URL(location, current).toString();
      continue;
    }
    return { response, url: current };
  }
  throw new ArtifactError(`${url}: more than ${MAX_REDIRECTS} redirects`);
}
