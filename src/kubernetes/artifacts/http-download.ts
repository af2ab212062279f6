// HTTP(S) downloads for the artifact cache: redirects followed, interrupted downloads resumed
// from where they stopped (Range), the result checked against its expected sha256 before it
// is renamed into place. A file that does not match is deleted, never used.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { dirname } from 'node:path';
import { ArtifactError } from './artifact.js';

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
    req.setTimeout(IDLE_TIMEOUT_MS, () => req.destroy(new Error(`no data for ${IDLE_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error) => reject(new ArtifactError(`${url}: ${error.message}`)));
  });
}

/** GET with redirects; the final response (any status) and its URL. */
async function follow(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<{ response: IncomingMessage; url: string }> {
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

/** A small text file (a checksum file). */
export async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  const { response } = await follow(url, {}, signal);
  if (response.statusCode !== 200) {
    response.resume();
    throw new ArtifactError(`${url}: HTTP ${response.statusCode ?? '?'}`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

function hashOf(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => hash.update(c))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

export interface DownloadResult {
  readonly resumedFrom: number;
  readonly bytes: number;
}

/**
 * Download `url` to `dest`, verified against `sha256`. Bytes land in `dest + ".part"` first;
 * a later call continues that file when the server honours Range.
 */
export async function downloadVerified(url: string, dest: string, sha256: string, what: string, signal?: AbortSignal): Promise<DownloadResult> {
  const part = `${dest}.part`;
  await mkdir(dirname(dest), { recursive: true });
  const have = await sizeOf(part);
  const { response } = await follow(url, have > 0 ? { range: `bytes=${have}-` } : {}, signal);
  const status = response.statusCode ?? 0;
  if (status === 416 && have > 0) {
    // Already complete (or longer than the file): check what we have.
    response.resume();
  } else if (status === 200 || status === 206) {
    const append = status === 206 && have > 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
        response.pipe(out);
        response.on('error', reject);
        response.on('aborted', () => reject(new Error('the server closed the connection')));
        out.on('error', reject);
        out.on('finish', resolve);
      });
    } catch (error) {
      const got = await sizeOf(part);
      throw new ArtifactError(
        `${what}: download of ${url} was interrupted after ${got} bytes (${(error as Error).message}); the part is kept: run again to resume`,
      );
    }
  } else {
    response.resume();
    throw new ArtifactError(
      `${what}: download failed: ${url} answered HTTP ${status}${status === 404 ? ' (not found: check the version, or the mirror in cluster.artifacts.mirrors)' : ''}`,
    );
  }
  const actual = await hashOf(part);
  if (actual !== sha256) {
    await rm(part, { force: true });
    throw new ArtifactError(
      `${what}: ${url} has sha256 ${actual}, expected ${sha256}: the download is corrupt or was tampered with, and was deleted; retry, or check the mirror`,
    );
  }
  const bytes = await sizeOf(part);
  await rename(part, dest);
  return { resumedFrom: status === 206 ? have : 0, bytes };
}
