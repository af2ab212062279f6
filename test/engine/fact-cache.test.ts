// A fact read before another task changed the host never becomes the cache's value: with a
// role's concurrentTasks one task's gather can still be in flight when another task invalidates
// the same fact. Gathers run over the fake connection (local /bin/sh).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newNonce } from '../../src/orchestrator/engine/fact-batch.js';
import { FactCache } from '../../src/orchestrator/engine/fact-cache.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { gatherFacts } from '../../src/orchestrator/engine/gather-facts.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { root } from './support/harness.js';
import { LocalShellConnection } from './support/local-shell-connection.js';

describe('FactCache', () => {
  it('refuses a value from a gather begun before an invalidation of its key, exact or by prefix', () => {
    const cache = new FactCache();
    const early = cache.begin();
    cache.invalidate(['images:containerd']);
    cache.invalidate(['file:/etc/*']);
    const late = cache.begin();
    expect(cache.set('images:containerd', 'before', early.since)).toBe(false);
    expect(cache.set('file:/etc/hosts', 'before', early.since)).toBe(false);
    expect(cache.set('file:/var/x', 'untouched', early.since)).toBe(true);
    expect(cache.set('images:containerd', 'after', late.since)).toBe(true);
    expect(cache.get('images:containerd')).toBe('after');
    expect(cache.has('file:/etc/hosts')).toBe(false);
    early.end();
    late.end();
  });

  it('forgets invalidations once no gather begun before them is open', () => {
    const cache = new FactCache();
    const gather = cache.begin();
    cache.invalidate(['k']);
    gather.end();
    // A later gather begins after the invalidation: its value is stored.
    const next = cache.begin();
    expect(cache.set('k', 1, next.since)).toBe(true);
    next.end();
    expect(cache.set('k', 2, gather.since)).toBe(true);
  });
});

describe('gatherFacts while another task invalidates the same fact (fake connection: local /bin/sh)', () => {
  it('gives its caller what it read but caches the later gather, whichever answers last', async () => {
    const dir = join(root, 'fact-cache-race');
    mkdirSync(dir, { recursive: true });
    const list = join(dir, 'list');
    const delay = join(dir, 'delay');
    writeFileSync(list, 'a\n');
    writeFileSync(delay, '0.6');
    // Reads the list first, then waits as long as the delay file said when it began.
    const listed: Fact<string> = { key: 'list', script: sh`d=$(cat ${delay}); cat ${list}; sleep "$d"`, parse: (stdout) => stdout.trim() };
    const connection = new LocalShellConnection('h1');
    const cache = new FactCache();
    const ctx = { host: 'h1', connection, cache, nonce: newNonce(), emit: () => undefined };

    const slow = gatherFacts(ctx, 'r', [listed]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Another task changes the host and invalidates while the slow gather is still out.
    writeFileSync(list, 'a\nb\n');
    writeFileSync(delay, '0');
    cache.invalidate(['list']);
    const fast = await gatherFacts(ctx, 'r', [listed]);
    expect(fast.get('list')).toBe('a\nb');
    const slowValues = await slow;
    expect(slowValues.get('list')).toBe('a');
    expect(cache.get('list')).toBe('a\nb');
  });
});
