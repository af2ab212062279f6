// A task whose change is a wait (the host gets there by itself): it runs and is verified like
// any other, but it is not a change: "ok" in the recap, not pending in --check, no handlers.
// Fake connection: each host's commands run in the local /bin/sh.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Play } from '../../src/orchestrator/engine/types.js';
import { eventsOf, fileFact, harness, hostDir, inventory } from './support/harness.js';

/** Waits until `flag` exists, which something else creates (here: a timer standing in for the host). */
function waitForFlag(flag: (host: string) => string): AnyTask {
  return {
    name: 'flag present',
    facts: (ctx) => ({ flag: fileFact(flag(ctx.host.name)) }),
    plan: (facts: { flag: string }) => (facts.flag === 'up' ? noChange('the flag is up') : { kind: 'wait', summary: 'wait for the flag', payload: null }),
    apply: async (_change, ctx) => {
      while (!existsSync(flag(ctx.host.name))) await new Promise((r) => setTimeout(r, 20));
    },
    notify: ['never'],
  };
}

describe('wait tasks (fake connection)', () => {
  it('waits, verifies, and counts as ok, not changed; --check reports it without pending changes', async () => {
    const flag = (h: string) => join(hostDir('wait', h), 'flag');
    let handlerRuns = 0;
    const plays: Play[] = [
      { name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [waitForFlag(flag)], handlers: [{ name: 'never', run: async () => void handlerRuns++ }] }] },
    ];

    const check = await runPlaybook(harness(inventory(['h1']), plays, { check: true }).options);
    expect([check.exitCode, check.changesPending, check.hosts[0]!.changed, check.hosts[0]!.ok]).toEqual([0, false, 0, 1]);

    // The flag goes up once the task has started (its facts were read without it), a little
    // later: a fixed delay from here raced the run's own start on a loaded machine.
    const h = harness(inventory(['h1']), plays);
    const summary = await runPlaybook({
      ...h.options,
      events: {
        emit: (e) => {
          h.options.events.emit(e);
          if (e.type === 'task-start') setTimeout(() => writeFileSync(flag('h1'), 'up'), 100);
        },
      },
    });
    expect([summary.exitCode, summary.hosts[0]!.changed, summary.hosts[0]!.ok, handlerRuns]).toEqual([0, 0, 1, 0]);
    const result = eventsOf(h.events, 'task-result')[0]!;
    expect(result.status).toBe('ok');
    expect(result.reason).toMatch(/^wait for the flag: done after \d+\.\d s$/);
  });
});
