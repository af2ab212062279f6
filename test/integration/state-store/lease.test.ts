// The store's lease against a real S3 server (versitygw): one holder at a time, named to the
// one refused; two controllers racing 100 times with exactly one winner each round; renewal
// keeps it past its time; a holder that stops renewing loses it to the next, which is told whom
// it took over from, and the old holder learns it lost; unlock frees a lease whose holder is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLease, breakLease, keepRenewed, LeaseHeld, LeaseLost, readLease } from '../../../src/orchestrator/state-store/lease.js';
import { S3Client } from '../../../src/orchestrator/state-store/s3/s3-client.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';

let server: S3TestServer;
const client = (): S3Client =>
  new S3Client(
    { endpoint: server.endpoint, bucket: 'leases', region: 'us-east-1', pathStyle: true },
    { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startS3Server();
  await client().createBucket();
}, 600_000);
afterAll(() => server?.stop());

describe('the state lease', () => {
  it('is held by one controller; the next is refused with the holder named, and takes it once released', async () => {
    const a = await acquireLease(client(), 'one/', { command: 'kcluster apply -i prod.yaml', machine: 'laptop-a', pid: 4242 });
    const refused = await acquireLease(client(), 'one/', { command: 'kcluster upgrade -i prod.yaml', machine: 'ci-runner', pid: 7 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LeaseHeld);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `another controller holds the lease s3://leases/one/lease.json: kcluster apply -i prod.yaml \\(pid 4242 on laptop-a, started ${a.holder.started}\\); it expires in \\d+ s unless renewed`,
      ),
    );
    await a.release();
    const b = await acquireLease(client(), 'one/', { command: 'kcluster upgrade -i prod.yaml', machine: 'ci-runner', pid: 7 });
    expect(b.tookOverFrom).toBeUndefined();
    await b.release();
  });

  it('two controllers racing 100 times: exactly one wins each round, and the loser names the winner', async () => {
    const [one, two] = [client(), client()];
    for (let round = 0; round < 100; round++) {
      const results = await Promise.allSettled([
        acquireLease(one, 'race/', { command: `apply round ${round}`, machine: 'one' }),
        acquireLease(two, 'race/', { command: `apply round ${round}`, machine: 'two' }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won, `round ${round}`).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason, `round ${round}`).toBeInstanceOf(LeaseHeld);
      const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLease>>>).value;
      expect((lost.reason as LeaseHeld).holder.machine).toBe(winner.holder.machine);
      await winner.release();
    }
  }, 120_000);

  it('renewed, it outlives its time; left alone, the next controller takes it over (named), and the old holder learns it lost', async () => {
    const a = await acquireLease(client(), 'ttl/', { command: 'kcluster apply', machine: 'a', ttlSeconds: 2 });
    const stop = keepRenewed(a, 500, () => undefined);
    await sleep(3_500);
    await expect(acquireLease(client(), 'ttl/', { command: 'kcluster apply', machine: 'b', ttlSeconds: 2 })).rejects.toBeInstanceOf(LeaseHeld);
    stop();
    await sleep(3_500);
    const b = await acquireLease(client(), 'ttl/', { command: 'kcluster upgrade', machine: 'b', ttlSeconds: 2 });
    expect(b.tookOverFrom).toMatchObject({ machine: 'a', command: 'kcluster apply' });
    await expect(a.renew()).rejects.toThrow(LeaseLost);
    await expect(a.renew()).rejects.toThrow(LeaseLost);
    // The old holder letting go does not free the new holder's lease.
    await a.release();
    expect((await readLease(client(), 'ttl/'))?.record.holder?.machine).toBe('b');
    await b.release();
  }, 30_000);

  it('keepRenewed tells the run once when the lease is lost', async () => {
    const a = await acquireLease(client(), 'lost/', { command: 'kcluster apply', machine: 'a', ttlSeconds: 60 });
    const lost: Error[] = [];
    const stop = keepRenewed(a, 300, (e) => lost.push(e));
    expect(await breakLease(client(), 'lost/')).toMatchObject({ machine: 'a' });
    await acquireLease(client(), 'lost/', { command: 'kcluster apply', machine: 'b' });
    await sleep(1_200);
    stop();
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(LeaseLost);
    expect(lost[0]!.message).toContain('expired and was taken by kcluster apply (pid');
  });

  it('unlock frees a lease whose holder is gone, and says there was none to free', async () => {
    await acquireLease(client(), 'unlock/', { command: 'kcluster apply (SIGKILLed)', machine: 'gone', ttlSeconds: 3600 });
    expect(await breakLease(client(), 'unlock/')).toMatchObject({ machine: 'gone', command: 'kcluster apply (SIGKILLed)' });
    expect(await breakLease(client(), 'unlock/')).toBeUndefined();
    const next = await acquireLease(client(), 'unlock/', { command: 'kcluster apply', machine: 'new' });
    expect(next.tookOverFrom).toBeUndefined();
  });
});
