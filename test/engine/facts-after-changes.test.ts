// What the engine knows about a host after it changed it (fake connection: local /bin/sh):
// handlers make facts stale, and facts may be named from values published earlier in the role.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Handler, Play } from '../../src/orchestrator/engine/types.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { eventsOf, fileFact, fileTask, harness, hostDir, inventory, runTask } from './support/harness.js';

/** Reads a file and reports its content as the reason; never changes anything. */
const readOnly = (name: string, path: () => string): AnyTask => ({
  name,
  facts: () => ({ current: fileFact(path()) }),
  plan: (facts: { current: string }) => noChange(`content ${JSON.stringify(facts.current)}`),
  apply: async () => {},
});

function playWith(test: string, handler: Handler): { plays: Play[]; state: string } {
  const dir = hostDir(test, 'h1');
  const state = join(dir, 'state');
  const roles = [
    { name: 'warm', tasks: [readOnly('before', () => state)] },
    { name: 'config', tasks: [fileTask('config', () => join(dir, 'config'), 'v2', { notify: ['restart'] })], handlers: [handler] },
    { name: 'check', tasks: [readOnly('after', () => state)] },
  ];
  return { plays: [{ name: 'p', hosts: 'all', roles }], state };
}

describe('facts after changes (fake connection: local /bin/sh per host)', () => {
  it('re-reads, after a handler ran, the facts it may have changed', async () => {
    const { plays, state } = playWith('handler-stale', {
      name: 'restart',
      run: async (ctx) => void (await ctx.connection.exec(sh`printf running > ${state}`)),
    });
    const h = harness(inventory(['h1']), plays);
    await runPlaybook(h.options);
    expect(eventsOf(h.events, 'facts-gathered').map((e) => e.role)).toEqual(['warm', 'config', 'config', 'check']);
    expect(eventsOf(h.events, 'task-result').map((e) => [e.task, e.reason ?? e.status])).toEqual([
      ['before', 'content ""'],
      ['config', 'changed'],
      ['after', 'content "running"'],
    ]);
  });

  it('keeps the facts a handler declares it does not touch', async () => {
    const { plays } = playWith('handler-narrow', { name: 'restart', run: async () => {}, invalidates: ['systemd:*'] });
    const h = harness(inventory(['h1']), plays);
    await runPlaybook(h.options);
    expect(eventsOf(h.events, 'facts-gathered').map((e) => e.role)).toEqual(['warm', 'config', 'config']);
  });

  it('plans a task whose facts name a value published earlier in the same role', async () => {
    const dir = hostDir('published', 'h1');
    const publisher = runTask('choose path', async () => {}, { apply: async (_c, ctx) => ctx.publish('path', join(dir, 'chosen')) });
    const reader: AnyTask = { ...readOnly('read chosen', () => ''), facts: (ctx) => ({ current: fileFact(ctx.shared.get('path') as string) }) };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [publisher, reader] }] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.hosts[0]).toMatchObject({ ok: 1, changed: 1, failed: 0 });
    expect(eventsOf(h.events, 'facts-gathered').map((e) => e.keys)).toEqual([[`file:${join(dir, 'chosen')}`]]);
  });
});
