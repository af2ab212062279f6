// HTTP(S) downloads for the artifact cache: redirects followed, transient failures tried again
// (http-retry.ts), an interrupted download resumed from where it stopped (Range), the result
// checked against its expected sha256 before it is renamed into place. A file that does not
// match is deleted and the failure is final: another attempt would fetch the same wrong bytes,
// and retrying until something matches is how a tampered file would get through.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { dirname } from 'node:path';
import { ArtifactError } from './artifact.js';
import { follow } from './http-get.js';
import { isTransientStatus, TransientHttpError, withRetries, type RetryOptions } from './http-retry.js';

async function fetchTextOnce(url: string, signal?: AbortSignal): Promise<string> {
  const { response } = await follow(url, {}, signal);
  const status = response.statusCode ?? 0;
  if (status !== 200) {
    response.resume();
    if (isTransientStatus(status)) throw new TransientHttpError(`HTTP ${status}`);
    throw new ArtifactError(`${url}: HTTP ${response.statusCode ?? '?'}`);
  }
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response) chunks.push(chunk as Buffer);
  } catch (error) {
    throw new TransientHttpError(`the connection dropped mid-answer (${(error as Error).message})`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A small text file (a checksum file). */
export function fetchText(url: string, options: RetryOptions = {}): Promise<string> {
  return withRetries(`GET ${url}`, () => fetchTextOnce(url, options.signal), options);
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

/**
 * The body into `part`. When the connection drops, what arrived is flushed and the file closed
 * before this rejects, so that the next attempt measures the part right and resumes after it.
 * A failure to write is an ArtifactError (final); a dropped connection, the stream's own error.
 */
function saveBody(response: IncomingMessage, part: string, append: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(part, { flags: append ? 'a' : 'w' });
    let failure: Error | undefined;
    const dropped = (error: Error): void => {
      if (failure) return;
      failure = error;
      response.unpipe(out);
      out.end();
    };
    response.on('error', dropped);
    response.on('aborted', () => dropped(new Error('the server closed the connection')));
    out.on('error', (error) => {
      failure = new ArtifactError(`cannot write ${part}: ${error.message}`);
      response.destroy();
    });
    out.on('close', () => (failure ? reject(failure) : resolve()));
    response.pipe(out);
  });
}

const startOfRange = (response: IncomingMessage): number | undefined => {
  const match = /^bytes (\d+)-/.exec(response.headers['content-range'] ?? '');
  return match ? Number(match[1]) : undefined;
};

/** One attempt at the rest of the file; the offset it resumed from (0 when from the start). */
async function fetchPart(url: string, part: string, what: string, signal?: AbortSignal): Promise<number> {
  const have = await sizeOf(part);
  const { response } = await follow(url, have > 0 ? { range: `bytes=${have}-` } : {}, signal);
  const status = response.statusCode ?? 0;
  if (status === 416 && have > 0) {
    // Already complete (or longer than the file): the checksum tells.
    response.resume();
    return 0;
  }
  if (status !== 200 && status !== 206) {
    response.resume();
    if (isTransientStatus(status)) throw new TransientHttpError(`HTTP ${status}`);
    throw new ArtifactError(
      `${what}: download failed: ${url} answered HTTP ${status}${status === 404 ? ' (not found: check the version, or the mirror in cluster.artifacts.mirrors)' : ''}`,
    );
  }
  if (status === 206 && startOfRange(response) !== have) {
    response.resume();
    await rm(part, { force: true });
    throw new TransientHttpError(`the server resumed elsewhere than at byte ${have}: the part was discarded, to start over`);
  }
  // A 200 answer to a Range request is the whole file again: the part is overwritten, not appended to.
  try {
    await saveBody(response, part, status === 206);
  } catch (error) {
    if (error instanceof ArtifactError) throw error;
    throw new TransientHttpError(`the connection dropped after ${await sizeOf(part)} bytes (${(error as Error).message})`);
  }
  return status === 206 ? have : 0;
}

export interface DownloadResult {
  readonly resumedFrom: number;
  readonly bytes: number;
}

/**
 * Download `url` to `dest`, verified against `sha256`. Bytes land in `dest + ".part"` first;
 * another attempt, or a later call, continues that file when the server honours Range.
 */
export async function downloadVerified(url: string, dest: string, sha256: string, what: string, options: RetryOptions = {}): Promise<DownloadResult> {
  const part = `${dest}.part`;
  await mkdir(dirname(dest), { recursive: true });
  const resumedFrom = await withRetries(`${what}: GET ${url}`, () => fetchPart(url, part, what, options.signal), options);
  const actual = await hashOf(part);
  if (actual !== sha256) {
    await rm(part, { force: true });
    throw new ArtifactError(
      `${what}: ${url} has sha256 ${actual}, expected ${sha256}: the download is corrupt or was tampered with, and was deleted; retry, or check the mirror`,
    );
  }
  const bytes = await sizeOf(part);
  await rename(part, dest);
  return { resumedFrom, bytes };
}
