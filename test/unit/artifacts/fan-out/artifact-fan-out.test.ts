import { describe, expect, it } from 'vitest';
import { ArtifactFanOut, type FanOutLease, type RelayHolder } from '../../../../src/kubernetes/artifacts/fan-out/artifact-fan-out.js';

const SHA = 'a'.repeat(64);
const holderOf = (host: string): RelayHolder => ({ host, address: `10.0.0.${host.slice(1)}`, port: 40000, token: 'f'.repeat(64) });

/** A fan-out on a fake clock that only moves when the test moves it. */
function fakeClockFanOut(overrides: Partial<ConstructorParameters<typeof ArtifactFanOut>[1] & object> = {}) {
  const clock = { now: 0 };
  const fanOut = new ArtifactFanOut((host) => host.ssh.address, {
    controllerCopies: 2,
    perHolder: 2,
    trustedIdleMs: 30_000,
    waitMs: 120_000,
    failuresBeforeOff: 3,
    now: () => clock.now,
    ...overrides,
  });
  return { fanOut, clock };
}

const sourceOf = (lease: FanOutLease): string => (lease.source.kind === 'holder' ? lease.source.holder.host : 'controller');

describe('ArtifactFanOut (fake clock, no hosts): copies spread as a tree from at most two controller copies', () => {
  it('gives 10 hosts their copies with the controller sending 2 and each holder serving at most 2 at once', async () => {
    const { fanOut } = fakeClockFanOut();
    const hosts = Array.from({ length: 10 }, (_, i) => `h${i + 1}`);
    const serving = new Map<string, number>();
    let most = 0;
    const sources = await Promise.all(
      hosts.map(async (host, i) => {
        const lease = await fanOut.acquire(SHA, host);
        const from = sourceOf(lease);
        if (from !== 'controller') {
          serving.set(from, (serving.get(from) ?? 0) + 1);
          most = Math.max(most, serving.get(from)!);
        }
        // Transfers of different lengths, so holders appear and free up in turn.
        await new Promise((resolve) => setTimeout(resolve, 1 + (i % 3)));
        if (from !== 'controller') {
          serving.set(from, serving.get(from)! - 1);
          lease.relayed();
        }
        lease.finish(holderOf(host));
        return from;
      }),
    );
    expect(sources.filter((s) => s === 'controller')).toHaveLength(2);
    expect(fanOut.controllerSends(SHA)).toBe(2);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('sends the copy from the controller after a failed relay, and asks that holder no more', async () => {
    const { fanOut } = fakeClockFanOut();
    const first = await fanOut.acquire(SHA, 'h1');
    first.finish(holderOf('h1'));
    const second = await fanOut.acquire(SHA, 'h2');
    expect(sourceOf(second)).toBe('h1');
    second.relayed();
    second.finish(holderOf('h2'));
    const third = await fanOut.acquire(SHA, 'h3');
    expect(sourceOf(third)).toBe('h1');
    third.relayFailed('connecting to 10.0.0.1:40000: connection refused');
    third.finish(holderOf('h3'));
    expect(fanOut.controllerSends(SHA)).toBe(2);
    const sources = [];
    for (const host of ['h4', 'h5', 'h6']) {
      const lease = await fanOut.acquire(SHA, host);
      sources.push(sourceOf(lease));
    }
    expect(sources).not.toContain('h1');
  });

  it('stops fanning out for the run after 3 failed relays and none that worked', async () => {
    const { fanOut } = fakeClockFanOut();
    const shas = ['1', '2', '3', '4'].map((c) => c.repeat(64));
    for (const sha of shas) (await fanOut.acquire(sha, 'h1')).finish(holderOf('h1'));
    for (const sha of shas.slice(0, 3)) {
      const lease = await fanOut.acquire(sha, 'h3');
      expect(lease.source.kind).toBe('holder');
      lease.relayFailed('i/o timeout');
      lease.finish();
    }
    expect(fanOut.offReason).toContain('3 relays failed');
    const after = await fanOut.acquire(shas[3]!, 'h3');
    expect(after.source).toEqual({ kind: 'controller', reason: expect.stringContaining('fan-out off for this run') });
    expect(fanOut.wantsHolder(shas[3]!, ['h9'])).toBe(false);
  });

  it('sends from the controller once a receiver waited waitMs for a holder', async () => {
    const { fanOut, clock } = fakeClockFanOut({ waitMs: 30 });
    // Two copies from the controller, on their way and never finished.
    await fanOut.acquire(SHA, 'h1');
    await fanOut.acquire(SHA, 'h2');
    setTimeout(() => (clock.now = 31), 5);
    const third = await fanOut.acquire(SHA, 'h3');
    expect(third.source).toEqual({ kind: 'controller', reason: 'no holder free after 0 s' });
  });

  it('wants a holder only while some host that needs the artifact has no source yet, those waiting included', async () => {
    const { fanOut } = fakeClockFanOut();
    const first = await fanOut.acquire(SHA, 'h1');
    const second = await fanOut.acquire(SHA, 'h2');
    // h3 waits: the controller sent its 2 copies and both are on their way.
    const third = fanOut.acquire(SHA, 'h3');
    expect(fanOut.wantsHolder(SHA, ['h1', 'h2', 'h3'])).toBe(true);
    first.finish(holderOf('h1'));
    second.finish();
    expect(sourceOf(await third)).toBe('h1');
    expect(fanOut.wantsHolder(SHA, ['h1', 'h2', 'h3'])).toBe(false);
  });
});
