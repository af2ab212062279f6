// RunOptions.onPlanned (plan files): each task's plan and the facts it was planned from, per
// host in order, in check mode; recorded twice with one salt, the plans compare equal until a
// host's file changes, and then the difference names the host, the task and the fact.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { PlannedTask } from '../../src/orchestrator/engine/planned-task.js';
import { comparePlans } from '../../src/cli/plan/compare-plan.js';
import { planRecorder } from '../../src/cli/plan/plan-recorder.js';
import { fileTask, harness, hostDir, inventory } from './support/harness.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';

const file = (host: string): string => join(hostDir('planned', host), 'value');
const plays = [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [fileTask('value', file, 'wanted')] }] }];

async function plan(salt: string): Promise<ReturnType<ReturnType<typeof planRecorder>['hosts']>> {
  const recorder = planRecorder(salt);
  const h = harness(inventory(['h1', 'h2']), plays, { check: true, onPlanned: (p: PlannedTask) => recorder.record(p) });
  expect((await runPlaybook(h.options)).exitCode).toBe(3);
  return recorder.hosts();
}

describe('planned tasks (plan files)', () => {
  it("leave a fact's volatile fields (the host's clock) out of its hash", async () => {
    let clock = 1;
    const fact: Fact<{ value: string; epoch: number }> = {
      key: 'clocked',
      script: sh`true`,
      parse: () => ({ value: 'same', epoch: clock++ }),
      volatile: ['epoch'],
    };
    const task = { name: 'clocked', facts: () => ({ fact }), plan: () => noChange(`clock read at ${clock}`), apply: async () => undefined };
    const record = async (): Promise<ReturnType<ReturnType<typeof planRecorder>['hosts']>> => {
      const recorder = planRecorder('salt');
      const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [task] }] }], {
        check: true,
        onPlanned: (p: PlannedTask) => recorder.record(p),
      });
      expect((await runPlaybook(h.options)).exitCode).toBe(0);
      return recorder.hosts();
    };
    const first = await record();
    expect(comparePlans(first, await record())).toEqual([]);
  });

  it('are told per host with their facts, compare equal when nothing changed, and name the fact that did', async () => {
    writeFileSync(file('h1'), 'old');
    writeFileSync(file('h2'), 'wanted');
    const first = await plan('salt');
    const h1 = first.find((h) => h.host === 'h1')!;
    expect(h1.tasks).toEqual([
      {
        play: 'p',
        role: 'r',
        task: 'value',
        kind: 'update',
        summary: 'set value',
        diff: '-old\n+wanted',
        facts: { [`file:${file('h1')}`]: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
    ]);
    expect(first.find((h) => h.host === 'h2')!.tasks[0]).toMatchObject({ kind: 'none', summary: 'already set' });
    expect(comparePlans(first, await plan('salt'))).toEqual([]);

    writeFileSync(file('h2'), 'edited by hand');
    expect(comparePlans(first, await plan('salt'))).toEqual([
      expect.stringMatching(
        new RegExp(`^h2: p / r / value: fact file:${file('h2')} changed since the plan \\(sha256 [0-9a-f]{12} then, sha256 [0-9a-f]{12} now\\)$`),
      ),
    ]);
  });
});
