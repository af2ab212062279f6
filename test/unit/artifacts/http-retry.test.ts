// Checksum files and downloads against a real loopback HTTP server scripted to misbehave like a
// mirror under load (reset connections, bodies cut short, 5xx and 429, Range ignored, wrong
// bytes). What is under test is real: the retries, their lines, the resume with Range, the
// checksum, and which failures are final at the first request.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { downloadVerified, fetchText } from '../../../src/kubernetes/artifacts/http-download.js';
import type { RetryPolicy } from '../../../src/kubernetes/artifacts/http-retry.js';
import { startScriptedMirror, type MirrorStep, type ScriptedMirror } from './support/scripted-mirror.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-http-retry-'));
const fast: RetryPolicy = { attempts: 4, firstDelayMs: 1 };
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const file = randomBytes(200_000);
const checksumText = `${sha256(file)}  cni-plugins-linux-amd64-v1.9.1.tgz\n`;
let mirror: ScriptedMirror | undefined;
let destinations = 0;

async function mirrorOf(body: Buffer | string, script: readonly MirrorStep[]): Promise<ScriptedMirror> {
  mirror = await startScriptedMirror(Buffer.from(body), script);
  return mirror;
}

function download(from: ScriptedMirror, options: { expected?: string; retried?: string[] } = {}) {
  const dest = join(dir, `download-${++destinations}`, 'cni.tgz');
  const url = `${from.url}/cni.tgz`;
  const result = downloadVerified(url, dest, options.expected ?? sha256(file), 'cni-plugins/cni v1.9.1', {
    retry: fast,
    onRetry: (line) => options.retried?.push(line),
  });
  return { dest, url, result };
}

afterEach(async () => {
  await mirror?.close();
  mirror = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checksum files from a loopback mirror scripted to fail', () => {
  it('reads the text after two reset connections, saying each retry', async () => {
    const server = await mirrorOf(checksumText, ['reset', 'reset', 'serve']);
    const url = `${server.url}/cni.tgz.sha256`;
    const retried: string[] = [];
    expect(await fetchText(url, { retry: fast, onRetry: (line) => retried.push(line) })).toBe(checksumText);
    expect(server.seen.length).toBe(3);
    expect(retried).toEqual([
      expect.stringMatching(new RegExp(`^GET ${url}: .*ECONNRESET.*; attempt 2 of 4 in \\d+(\\.\\d)? s$`)),
      expect.stringMatching(new RegExp(`^GET ${url}: .*ECONNRESET.*; attempt 3 of 4 in `)),
    ]);
  });

  it('gives up after exactly the attempts allowed when every connection is reset, naming the URL, the count and the last error', async () => {
    const server = await mirrorOf(checksumText, ['reset']);
    const url = `${server.url}/cni.tgz.sha256`;
    const error = await fetchText(url, { retry: fast }).then(
      () => new Error('read the text from a server that resets every connection'),
      (e: unknown) => e as Error,
    );
    expect(server.seen.length).toBe(4);
    expect(error.message).toMatch(new RegExp(`^GET ${url} failed 4 times, the last with: .*ECONNRESET`));
    expect(error.message).toContain('check that the mirror (cluster.artifacts.mirrors) is up and reachable, then run again');
  });

  it('retries 429 and 503 and reads the text that follows', async () => {
    const server = await mirrorOf(checksumText, [{ status: 429 }, { status: 503 }, 'serve']);
    const retried: string[] = [];
    expect(await fetchText(`${server.url}/x.sha256`, { retry: fast, onRetry: (line) => retried.push(line) })).toBe(checksumText);
    expect(server.seen.length).toBe(3);
    expect(retried.map((line) => line.split(': ')[1]?.split(';')[0])).toEqual(['HTTP 429', 'HTTP 503']);
  });

  it('takes a 404 as final after one request', async () => {
    const server = await mirrorOf(checksumText, [{ status: 404 }, 'serve']);
    const url = `${server.url}/missing.sha256`;
    await expect(fetchText(url, { retry: fast })).rejects.toThrow(`${url}: HTTP 404`);
    expect(server.seen.length).toBe(1);
  });

  it('stops at once on abort (Ctrl-C), without waiting out the pause or trying again', async () => {
    const server = await mirrorOf(checksumText, ['reset']);
    const abort = new AbortController();
    const started = Date.now();
    const attempt = fetchText(`${server.url}/x.sha256`, { signal: abort.signal, retry: { attempts: 4, firstDelayMs: 60_000 }, onRetry: () => abort.abort() });
    await expect(attempt).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.seen.length).toBe(1);
  });
});

describe('downloads from a loopback mirror scripted to fail', () => {
  it('downloads the file after a reset connection, and it verifies', async () => {
    const server = await mirrorOf(file, ['reset', 'serve']);
    const retried: string[] = [];
    const { dest, url, result } = download(server, { retried });
    expect(await result).toEqual({ resumedFrom: 0, bytes: file.length });
    expect(sha256(readFileSync(dest))).toBe(sha256(file));
    expect(server.seen.length).toBe(2);
    expect(retried).toEqual([expect.stringMatching(new RegExp(`^cni-plugins/cni v1.9.1: GET ${url}: .*ECONNRESET.*; attempt 2 of 4 in `))]);
  });

  it('resumes a body cut mid-way with a Range request, and the result verifies', async () => {
    const server = await mirrorOf(file, [{ cutAfter: 50_000 }, 'serve']);
    const retried: string[] = [];
    const { dest, result } = download(server, { retried });
    expect(await result).toEqual({ resumedFrom: 50_000, bytes: file.length });
    expect(server.seen.map((r) => r.range)).toEqual([undefined, 'bytes=50000-']);
    expect(sha256(readFileSync(dest))).toBe(sha256(file));
    expect(retried).toEqual([expect.stringContaining('the connection dropped after 50000 bytes')]);
  });

  it('starts over cleanly when the server ignores Range (200 instead of 206)', async () => {
    const server = await mirrorOf(file, [{ cutAfter: 50_000 }, 'serve-ignoring-range']);
    const { dest, result } = download(server);
    expect(await result).toEqual({ resumedFrom: 0, bytes: file.length });
    expect(server.seen.map((r) => r.range)).toEqual([undefined, 'bytes=50000-']);
    expect(sha256(readFileSync(dest))).toBe(sha256(file));
  });

  it('retries a 503 and then downloads', async () => {
    const server = await mirrorOf(file, [{ status: 503 }, 'serve']);
    const { dest, result } = download(server);
    await result;
    expect(server.seen.length).toBe(2);
    expect(sha256(readFileSync(dest))).toBe(sha256(file));
  });

  it('refuses wrong bytes after ONE request (a checksum mismatch is never retried) and deletes them', async () => {
    const server = await mirrorOf(Buffer.from('tampered'), ['serve']);
    const { dest, url, result } = download(server);
    await expect(result).rejects.toThrow(`cni-plugins/cni v1.9.1: ${url} has sha256 ${sha256(Buffer.from('tampered'))}, expected ${sha256(file)}`);
    expect(server.seen.length).toBe(1);
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(`${dest}.part`)).toBe(false);
  });

  it('takes a 404 as final after one request', async () => {
    const server = await mirrorOf(file, [{ status: 404 }, 'serve']);
    const { url, result } = download(server);
    await expect(result).rejects.toThrow(`cni-plugins/cni v1.9.1: download failed: ${url} answered HTTP 404 (not found`);
    expect(server.seen.length).toBe(1);
  });

  it('gives up after exactly the attempts allowed when every body is cut, keeping what arrived for the next run', async () => {
    const server = await mirrorOf(file, [{ cutAfter: 10_000 }]);
    const { dest, url, result } = download(server);
    await expect(result).rejects.toThrow(new RegExp(`^cni-plugins/cni v1.9.1: GET ${url} failed 4 times, the last with: the connection dropped after`));
    expect(server.seen.length).toBe(4);
    // Each attempt asked for the rest; the server answered 200 from the start each time, so the part started over.
    expect(server.seen.map((r) => r.range)).toEqual([undefined, 'bytes=10000-', 'bytes=10000-', 'bytes=10000-']);
    expect(readFileSync(`${dest}.part`)).toEqual(file.subarray(0, 10_000));
  });
});
