// A real S3 server for the state-store tests: versitygw (test/state-store/build-versitygw.sh),
// started on a free loopback port with its own root credentials and folders, stopped by the
// test. `versioned` adds --versioning-dir (a bucket can then keep old versions); without it the
// server refuses versioning, as some S3-compatible stores do.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex, signRequest } from '../../../src/orchestrator/state-store/s3/sigv4.js';
import { repoRoot } from './test-lab.js';

export interface S3TestServer {
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly dataDir: string;
  /** Stops the server (SIGKILL when `abruptly`, as a crash), and waits for it to exit. */
  stop(abruptly?: boolean): Promise<void>;
  /** A user of the server (role user: what bucket policies grant it, nothing more); started with `users`. */
  addUser(accessKeyId: string, secretAccessKey: string): Promise<void>;
  /** Sets a bucket's policy (JSON), as its owner. */
  putBucketPolicy(bucket: string, policy: string): Promise<void>;
}

let binary: string | undefined;
/** The versitygw binary, built and cached once per machine (minutes the first time). */
export function versitygwBinary(): string {
  binary ??= execFileSync('bash', [join(repoRoot, 'test', 'state-store', 'build-versitygw.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return binary;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function answers(endpoint: string, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (Date.now() > until) throw new Error(`versitygw did not answer on ${endpoint} within ${limitMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * `host`: the address it listens on (default 127.0.0.1; a lab bridge's address for lab hosts to
 * reach it). `users`: with its internal IAM, so addUser can make users that bucket policies limit.
 */
export async function startS3Server(options: { versioned?: boolean; host?: string; users?: boolean } = {}): Promise<S3TestServer> {
  const host = options.host ?? '127.0.0.1';
  const root = mkdtempSync(join(tmpdir(), 'kc-s3-'));
  const dataDir = join(root, 'data');
  for (const d of ['data', 'meta', 'versions', 'iam']) mkdirSync(join(root, d));
  const port = await freePort();
  const accessKeyId = `kctest${randomBytes(4).toString('hex')}`;
  const secretAccessKey = randomBytes(18).toString('base64');
  const args = [
    '--port',
    `${host}:${port}`,
    ...(options.users ? ['--iam-dir', join(root, 'iam')] : []),
    'posix',
    '--sidecar',
    join(root, 'meta'),
    ...(options.versioned ? ['--versioning-dir', join(root, 'versions')] : []),
    dataDir,
  ];
  // The credentials go through the environment, never argv.
  const child: ChildProcess = spawn(versitygwBinary(), args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ROOT_ACCESS_KEY_ID: accessKeyId, ROOT_SECRET_ACCESS_KEY: secretAccessKey },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const endpoint = `http://${host}:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([answers(endpoint, 20_000), exited.then(() => Promise.reject(new Error(`versitygw exited: ${stderr}`)))]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    dataDir,
    addUser: async (id, secret) => {
      // The admin CLI takes the new user's secret only as a flag: a throwaway credential of a
      // test server, on a test address. The admin's own comes through the environment.
      execFileSync(versitygwBinary(), ['admin', '--er', endpoint, 'create-user', '-a', id, '-s', secret, '-r', 'user'], {
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ADMIN_ACCESS_KEY: accessKeyId, ADMIN_SECRET_KEY: secretAccessKey },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    },
    putBucketPolicy: async (bucket, policy) => {
      const url = new URL(`${endpoint}/${bucket}?policy=`);
      const headers = signRequest(
        { method: 'PUT', url, headers: { 'content-type': 'application/json' }, payloadSha256: sha256Hex(policy) },
        { accessKeyId, secretAccessKey },
        'us-east-1',
        new Date(),
      );
      delete headers['host'];
      const answer = await fetch(url, { method: 'PUT', headers, body: policy });
      if (!answer.ok) throw new Error(`PUT ${bucket}?policy: HTTP ${answer.status}: ${await answer.text()}`);
    },
    stop: async (abruptly = false) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(abruptly ? 'SIGKILL' : 'SIGTERM');
      await exited;
    },
  };
}
