// What a running task says while it waits (ApplyContext.progress), through the engine with the
// harness's fake connection (local /bin/sh per host): each line is a task-progress event naming
// the host, role and task (or handler) it comes from, between that task's start and its result.
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Role } from '../../src/orchestrator/engine/types.js';
import { harness, inventory, runTask } from './support/harness.js';

/** A wait of 60 simulated seconds (a probe a second), reporting what it awaits every 20 s. */
async function simulatedWait(report: (line: string) => void): Promise<void> {
  let t = 0;
  await pollUntil({
    timeoutMs: 600_000,
    intervalMs: 1000,
    signal: new AbortController().signal,
    now: () => t,
    sleep: async (ms) => void (t += ms),
    probe: async () => t,
    done: (seconds) => seconds >= 60_000,
    progress: { describe: (last) => `the clock at 60 s (now ${(last ?? 0) / 1000} s)`, report },
  });
}

describe('task progress (fake connection)', () => {
  it('reaches the events in order, named after the task or handler that said it', async () => {
    const role: Role = {
      name: 'r',
      tasks: [
        runTask('quick', async () => undefined),
        {
          ...runTask('slow wait', async () => undefined),
          apply: async (_change, ctx) => simulatedWait((line) => ctx.progress(line)),
          notify: ['settle'],
        },
      ],
      handlers: [{ name: 'settle', run: async (ctx) => ctx.progress('still settling') }],
    };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(0);
    const told = h.events.flatMap((e) => {
      if (e.type === 'task-start') return [`start ${e.task}`];
      if (e.type === 'task-result') return [`${e.status} ${e.task}`];
      if (e.type === 'task-progress') return [`${e.host} ${e.role} ${e.task}: ${e.message}`];
      if (e.type === 'handler-result') return [`handler ${e.handler} ${e.status}`];
      return [];
    });
    expect(told).toEqual([
      'start quick',
      'changed quick',
      'start slow wait',
      'h1 r slow wait: still waiting after 20 s (of 600 s): the clock at 60 s (now 20 s)',
      'h1 r slow wait: still waiting after 40 s (of 600 s): the clock at 60 s (now 40 s)',
      'changed slow wait',
      'h1 r handler settle: still settling',
      'handler settle changed',
    ]);
  });

  it('names its own task when the role runs tasks at once (concurrentTasks)', async () => {
    const saying = (name: string): AnyTask => ({
      ...runTask(name, async () => undefined),
      apply: async (_change, ctx) => {
        for (const n of [1, 2, 3]) {
          ctx.progress(`${name} says ${n}`);
          await new Promise((r) => setTimeout(r, 5));
        }
      },
    });
    const role: Role = { name: 'r', concurrentTasks: 2, tasks: [saying('a'), saying('b')] };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    expect((await runPlaybook(h.options)).exitCode).toBe(0);
    const progress = h.events.flatMap((e) => (e.type === 'task-progress' ? [`${e.task}: ${e.message}`] : []));
    expect(progress.filter((p) => p.startsWith('a: '))).toEqual(['a: a says 1', 'a: a says 2', 'a: a says 3']);
    expect(progress.filter((p) => p.startsWith('b: '))).toEqual(['b: b says 1', 'b: b says 2', 'b: b says 3']);
  });
});
