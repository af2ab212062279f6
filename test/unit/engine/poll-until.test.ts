// The waits' polling loop on a simulated clock: a probe stopped at its time limit is "not yet";
// the wait's own deadline, an interruption or another error ends it.
// With a progress, it says every 20 s (here 15 s) what it still awaits, and never once done.
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../../src/orchestrator/engine/poll-until.js';
import { CommandStoppedError } from '../../../src/orchestrator/ssh/command-stopped-error.js';

function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms), advance: (ms: number) => void (t += ms) };
}
const timedOut = () => new CommandStoppedError('h1', 'probe', 'timed out after 30000 ms and was stopped', 'probe', undefined, true);
const signal = new AbortController().signal;

describe('pollUntil', () => {
  it('treats probes that time out as not yet and goes on until the state is reached', async () => {
    const c = clock();
    const answers: (number | Error)[] = [timedOut(), timedOut(), 1, 2, 3];
    const outcome = await pollUntil({
      timeoutMs: 300_000,
      intervalMs: 2000,
      signal,
      now: c.now,
      sleep: c.sleep,
      probe: async () => {
        const a = answers.shift()!;
        c.advance(a instanceof Error ? 30_000 : 10);
        if (a instanceof Error) throw a;
        return a;
      },
      done: (v) => v === 3,
    });
    expect(outcome).toEqual({ reached: true, value: 3 });
  });

  it('ends at its own deadline with the last state and how many probes were slow', async () => {
    const c = clock();
    let n = 0;
    const outcome = await pollUntil({
      timeoutMs: 100_000,
      intervalMs: 2000,
      signal,
      now: c.now,
      sleep: c.sleep,
      probe: async () => {
        n += 1;
        c.advance(30_000);
        if (n % 2 === 0) throw timedOut();
        return `state ${n}`;
      },
      done: () => false,
    });
    expect(outcome).toMatchObject({ reached: false, last: 'state 3', interrupted: false });
    expect(outcome.reached === false && outcome.slowProbes).toBe(2);
  });

  it('a cancelled probe or any other error ends the wait at once', async () => {
    const cancelled = new CommandStoppedError('h1', 'probe', 'was cancelled', 'probe');
    await expect(pollUntil({ timeoutMs: 1000, intervalMs: 10, signal, probe: async () => Promise.reject(cancelled), done: () => true })).rejects.toBe(
      cancelled,
    );
    await expect(
      pollUntil({ timeoutMs: 1000, intervalMs: 10, signal, probe: async () => Promise.reject(new Error('unreachable')), done: () => true }),
    ).rejects.toThrow('unreachable');
  });

  it('stops when the run is interrupted', async () => {
    const controller = new AbortController();
    const outcome = await pollUntil({
      timeoutMs: 60_000,
      intervalMs: 10,
      signal: controller.signal,
      probe: async () => {
        controller.abort();
        return 0;
      },
      done: () => false,
    });
    expect(outcome).toMatchObject({ reached: false, interrupted: true, last: 0 });
  });
});

describe('pollUntil progress', () => {
  it('says every 20 s how long it has waited and what is still awaited, and nothing once done', async () => {
    const c = clock();
    const lines: string[] = [];
    let n = 0;
    const outcome = await pollUntil({
      timeoutMs: 600_000,
      intervalMs: 3000,
      signal,
      now: c.now,
      sleep: c.sleep,
      // 3 s a probe and 3 s between probes: done at the 12th answer, 69 s in, when a third line was due.
      probe: async () => {
        c.advance(3000);
        n += 1;
        return n;
      },
      done: (v) => v === 12,
      progress: { describe: (last) => `answer ${last} is not 12`, report: (line) => lines.push(line) },
    });
    expect(outcome).toEqual({ reached: true, value: 12 });
    expect(lines).toEqual(['still waiting after 21 s (of 600 s): answer 4 is not 12', 'still waiting after 45 s (of 600 s): answer 8 is not 12']);
  });

  it('names what is awaited before any answer, and the probes that ran past their limit', async () => {
    const c = clock();
    const lines: string[] = [];
    const outcome = await pollUntil<number>({
      timeoutMs: 60_000,
      intervalMs: 2000,
      signal,
      now: c.now,
      sleep: c.sleep,
      probe: async () => {
        c.advance(10_000);
        throw timedOut();
      },
      done: () => true,
      progress: { everyMs: 15_000, describe: (last) => (last === undefined ? 'no answer yet' : `${last}`), report: (line) => lines.push(line) },
    });
    expect(outcome).toMatchObject({ reached: false, interrupted: false, slowProbes: 6 });
    expect(lines).toEqual([
      'still waiting after 22 s (of 60 s): no answer yet (2 probe(s) ran past their time limit)',
      'still waiting after 46 s (of 60 s): no answer yet (4 probe(s) ran past their time limit)',
    ]);
  });
});
