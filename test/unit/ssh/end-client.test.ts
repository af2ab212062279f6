import { EventEmitter } from 'node:events';
import type { Client } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { endClient } from '../../../src/orchestrator/ssh/end-client.js';

/** A fake ssh2 Client: counts end() calls and closes when the test says so. */
function fakeClient(): Client & { ends: number } {
  const emitter = new EventEmitter() as EventEmitter & { ends: number; end(): void };
  emitter.ends = 0;
  emitter.end = () => {
    emitter.ends += 1;
  };
  return emitter as unknown as Client & { ends: number };
}

describe('endClient (fake client)', () => {
  it('ends the client and resolves only once it closed', async () => {
    const client = fakeClient();
    let done = false;
    const ending = endClient(client, false, 60_000).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(client.ends).toBe(1);
    expect(done).toBe(false);
    client.emit('close');
    await ending;
    expect(done).toBe(true);
  });

  it('gives up waiting after the grace when the server never closes', async () => {
    const client = fakeClient();
    const started = Date.now();
    await endClient(client, false, 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(client.ends).toBe(1);
  });

  it('does nothing for a client already closed', async () => {
    const client = fakeClient();
    await endClient(client, true, 60_000);
    expect(client.ends).toBe(0);
  });
});
