// The per-connection channel limit: never more than N at once, every waiter served in order.
import { describe, expect, it } from 'vitest';
import { ChannelSlots } from '../../../src/orchestrator/ssh/channel-slots.js';

describe('channel slots', () => {
  it('never lets more than the limit run, even when releases and new requests interleave', async () => {
    const slots = new ChannelSlots(3);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const work = async (i: number): Promise<void> => {
      const release = await slots.acquire();
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, (i % 4) * 2));
      running -= 1;
      order.push(i);
      release();
      release(); // a second release is a no-op
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => work(i)));
    expect(peak).toBe(3);
    expect(order.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('refuses a limit below one', () => {
    expect(() => new ChannelSlots(0)).toThrow('positive integer');
  });
});
