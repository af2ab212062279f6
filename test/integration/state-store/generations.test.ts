// The state as generations in a real S3 server (versitygw): a commit and its files back byte for
// byte; only changed files uploaded; two controllers from the same generation, one wins and the
// other is told who; rollback as a new generation; another key refused before anything is
// opened; a blob damaged on the server's disk refused, naming the file and the generation.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvelopeError } from '../../../src/orchestrator/state-store/envelope.js';
import { GenerationStore, StateChanged, type StateFile } from '../../../src/orchestrator/state-store/generations.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { stateKeyFromBytes } from '../../../src/orchestrator/state-store/state-key.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let server: S3TestServer;
const key = stateKeyFromBytes(Buffer.alloc(32, 1), 'the key file /k');
const s3 = (): S3Client =>
  new S3Client(
    { endpoint: server.endpoint, bucket: 'state', region: 'us-east-1', pathStyle: true },
    { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  );
const by = (machine: string) => ({ machine, pid: 1, command: `kcluster apply (${machine})` });
const file = (path: string, text: string, mode = 0o600): StateFile => ({ path, content: Buffer.from(text), mode });

async function blobCount(prefix: string): Promise<number> {
  let n = 0;
  for await (const _ of s3().list(`${prefix}blobs/`)) n++;
  return n;
}

beforeAll(async () => {
  server = await startS3Server();
  await s3().createBucket();
}, 600_000);
afterAll(() => server?.stop());

describe('generations of the state', () => {
  it('commits files and reads them back; the next commit uploads only what changed', async () => {
    const store = new GenerationStore(s3(), 'a/', key);
    expect(await store.head()).toBeUndefined();
    const one = await store.commit(
      undefined,
      [file('pki/ca.key', 'KEY-1'), file('pki/ca.crt', 'CERT-1', 0o644), file('known_hosts', 'cp1 ssh-ed25519 AAA')],
      by('laptop'),
      'apply',
    );
    expect(one.generation).toBe(1);
    expect(await blobCount('a/')).toBe(3);
    const head = await store.head();
    expect(head).toEqual(one);
    expect((await store.files(head!)).map((f) => [f.path, f.content.toString(), f.mode])).toEqual([
      ['known_hosts', 'cp1 ssh-ed25519 AAA', 0o600],
      ['pki/ca.crt', 'CERT-1', 0o644],
      ['pki/ca.key', 'KEY-1', 0o600],
    ]);
    const two = await store.commit(
      one,
      [file('pki/ca.key', 'KEY-1'), file('pki/ca.crt', 'CERT-1', 0o644), file('known_hosts', 'cp1 ssh-ed25519 AAA\ncp2 ssh-ed25519 BBB')],
      by('laptop'),
      'trust',
    );
    expect(two).toMatchObject({ generation: 2, parent: 1, reason: 'trust' });
    expect(await blobCount('a/')).toBe(4);
    expect(two.files['pki/ca.key']).toEqual(one.files['pki/ca.key']);
  });

  it('of two controllers from the same generation, one writes the next and the other is told who did, publishing nothing', async () => {
    const store = new GenerationStore(s3(), 'race/', key);
    const base = await store.commit(undefined, [file('pki/ca.key', 'K')], by('setup'), 'apply');
    const results = await Promise.allSettled([
      new GenerationStore(s3(), 'race/', key).commit(base, [file('pki/ca.key', 'K'), file('encryption/keys.json', 'from A')], by('laptop-a'), 'apply'),
      new GenerationStore(s3(), 'race/', key).commit(base, [file('pki/ca.key', 'K'), file('encryption/keys.json', 'from B')], by('ci-runner'), 'apply'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as StateChanged;
    expect(lost).toBeInstanceOf(StateChanged);
    const head = (await store.head())!;
    expect(head.generation).toBe(2);
    expect(lost.message).toContain(`generation 2 was written by ${head.by.command} (pid 1 on ${head.by.machine}`);
    expect(lost.message).toContain('while this run started from 1; nothing of this run was published');
  });

  it('rolls back as a new generation holding what an older one held', async () => {
    const store = new GenerationStore(s3(), 'back/', key);
    const one = await store.commit(undefined, [file('pki/ca.key', 'GOOD')], by('a'), 'apply');
    await store.commit(one, [file('pki/ca.key', 'BAD'), file('pki/extra', 'x')], by('a'), 'a bad write');
    const three = await store.rollback(1, by('operator'));
    expect(three).toMatchObject({ generation: 3, parent: 2, reason: 'rollback to 1' });
    expect((await store.files(three)).map((f) => `${f.path}=${f.content.toString()}`)).toEqual(['pki/ca.key=GOOD']);
    expect(await store.numbers()).toEqual([1, 2, 3]);
  });

  it('refuses another key before opening anything, naming both keys', async () => {
    const other = stateKeyFromBytes(Buffer.alloc(32, 2), 'KCLUSTER_STATE_KEY');
    const error = await new GenerationStore(s3(), 'a/', other).head().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvelopeError);
    expect((error as Error).message).toContain(`was sealed with the state key ${key.fingerprint}, and KCLUSTER_STATE_KEY is ${other.fingerprint}`);
  });

  it('refuses a blob damaged on the server, naming the file, its generation and what to do', async () => {
    const store = new GenerationStore(s3(), 'damaged/', key);
    const one = await store.commit(undefined, [file('pki/ca.key', 'KEY')], by('a'), 'apply');
    const blob = one.files['pki/ca.key']!.blob;
    // The bucket is a folder of the server (posix backend): flip a byte of the object's file.
    const onDisk = join(server.dataDir, 'state', 'damaged', blob);
    expect(statSync(onDisk).isFile()).toBe(true);
    const bytes = readFileSync(onDisk);
    bytes[bytes.length - 1]! ^= 0xff;
    writeFileSync(onDisk, bytes);
    await expect(store.files(one)).rejects.toThrow(
      `s3://state/damaged/${blob}, which holds pki/ca.key in generation 1, fails its checksum: no older generation holds it`,
    );
    expect(readdirSync(join(server.dataDir, 'state', 'damaged', 'generations'))).toHaveLength(1);
  });
});
