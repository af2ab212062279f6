// kcluster's S3 client against a real S3 server (versitygw, built from source): objects in and
// out byte for byte, listings across pages, conditional writes refused when their condition
// fails (and a lost answer's retry meeting its own write), versioning, wrong credentials named,
// and a server that is gone reported after bounded tries.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreconditionFailed, S3Client, S3Error } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let plain: S3TestServer;
let versioned: S3TestServer;
const clientOf = (server: S3TestServer, bucket: string, secret = server.secretAccessKey): S3Client =>
  new S3Client(
    { endpoint: server.endpoint, bucket, region: 'us-east-1', pathStyle: true },
    { accessKeyId: server.accessKeyId, secretAccessKey: secret },
    { sleep: async () => undefined },
  );

beforeAll(async () => {
  [plain, versioned] = await Promise.all([startS3Server(), startS3Server({ versioned: true })]);
}, 600_000);
afterAll(async () => {
  await Promise.all([plain?.stop(), versioned?.stop()]);
});

describe('S3Client against versitygw', () => {
  it('creates a bucket (twice is fine), writes and reads objects byte for byte, keys with spaces and unicode included', async () => {
    const s3 = clientOf(plain, 'kcluster-state');
    await s3.createBucket();
    await s3.createBucket();
    const body = randomBytes(70_000);
    for (const key of ['team/pki/ca.key', 'team/logs/2026-11-28T10:15:00Z apply été+1.log']) {
      const put = await s3.put(key, body);
      const got = await s3.get(key);
      expect(got?.body.equals(body), key).toBe(true);
      expect(got?.etag).toBe(put.etag);
      expect(got?.serverDate).toBeInstanceOf(Date);
      expect(await s3.head(key)).toEqual({ etag: put.etag, size: body.length });
    }
    expect(await s3.get('team/none')).toBeUndefined();
    expect(await s3.head('team/none')).toBeUndefined();
  });

  it('lists a prefix in key order across pages, from a start key', async () => {
    const s3 = clientOf(plain, 'listing');
    await s3.createBucket();
    const keys = Array.from({ length: 1005 }, (_, i) => `gen/${String(i).padStart(10, '0')}.kce`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => s3.put(k, Buffer.from(k))));
    await s3.put('other/x', Buffer.from('x'));
    const listed: string[] = [];
    for await (const o of s3.list('gen/')) listed.push(o.key);
    expect(listed).toEqual(keys);
    const after: string[] = [];
    for await (const o of s3.list('gen/', keys[1000])) after.push(o.key);
    expect(after).toEqual(keys.slice(1001));
  });

  it('writes only if absent: one of two racing writers wins, the other is refused; a retry of the winner meets itself', async () => {
    const s3 = clientOf(plain, 'conditional');
    await s3.createBucket();
    const results = await Promise.allSettled([
      s3.put('gen/1', Buffer.from('writer A'), { ifAbsent: true }),
      s3.put('gen/1', Buffer.from('writer B'), { ifAbsent: true }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(PreconditionFailed);
    const winner = (await s3.get('gen/1'))!.body.toString();
    // The winner's answer lost and the same write sent again: it is its own object, not a loss.
    await expect(s3.put('gen/1', Buffer.from(winner), { ifAbsent: true })).resolves.toMatchObject({ etag: expect.any(String) as string });
    await expect(s3.put('gen/1', Buffer.from(`${winner}, again`), { ifAbsent: true })).rejects.toBeInstanceOf(PreconditionFailed);
  });

  it('writes only if unchanged: the ETag it read is refused once another write came between', async () => {
    const s3 = clientOf(plain, 'conditional');
    const first = await s3.put('lease.json', Buffer.from('{"holder":"a"}'));
    const second = await s3.put('lease.json', Buffer.from('{"holder":"b"}'), { ifMatch: first.etag });
    await expect(s3.put('lease.json', Buffer.from('{"holder":"c"}'), { ifMatch: first.etag })).rejects.toBeInstanceOf(PreconditionFailed);
    expect((await s3.get('lease.json'))!.body.toString()).toBe('{"holder":"b"}');
    await s3.put('lease.json', Buffer.from('{"holder":"d"}'), { ifMatch: second.etag });
    await s3.delete('lease.json');
    await s3.delete('lease.json');
    expect(await s3.get('lease.json')).toBeUndefined();
  });

  it('reports versioning: off until enabled where the server keeps versions, refused where it does not', async () => {
    const v = clientOf(versioned, 'history');
    await v.createBucket();
    expect(await v.versioning()).toBe('off');
    await v.enableVersioning();
    expect(await v.versioning()).toBe('enabled');
    const p = clientOf(plain, 'no-history');
    await p.createBucket();
    await expect(p.enableVersioning()).rejects.toBeInstanceOf(S3Error);
  });

  it('names a wrong secret as a credentials problem (403), and a bucket that does not exist', async () => {
    await expect(clientOf(plain, 'kcluster-state', 'wrong').get('team/pki/ca.key')).rejects.toThrow(/HTTP 403.*check the store credentials/);
    await expect(clientOf(plain, 'no-such-bucket').put('x', Buffer.from('x'))).rejects.toThrow(/HTTP 404 NoSuchBucket.*create the bucket no-such-bucket first/);
  });

  it('reports a server that is gone after bounded tries, naming the endpoint', async () => {
    const gone = await startS3Server();
    await gone.stop(true);
    const s3 = clientOf(gone, 'x');
    await expect(s3.get('k')).rejects.toThrow(`GET s3://x/k: no answer after 4 tries`);
    await expect(s3.get('k')).rejects.toThrow(`check that the store at ${gone.endpoint} is reachable`);
  });
});
