// A role's BeforeFirstChange (the engine contract, see types.ts), with the harness's fake
// connection (local /bin/sh per host): once per run, on the first host about to change, just
// before that change; never on a converged run; said in check mode without running; a failure
// stops the change on that host and on every other host sharing it.
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { BeforeFirstChange, Role } from '../../src/orchestrator/engine/types.js';
import { convergedTask, eventsOf, harness, inventory, recordingTask, waitingTask } from './support/harness.js';

function hook(ran: string[], fails = false): BeforeFirstChange {
  return {
    name: 'snapshot',
    once: 'snapshot',
    run: async (ctx) => {
      ran.push(`snapshot on ${ctx.host.name}`);
      if (fails) throw new Error('etcd did not answer');
      return `snapshot saved from ${ctx.host.name}`;
    },
  };
}

const changing = recordingTask;
const converged = convergedTask;
const waiting = waitingTask;

describe('a role run before its first change', () => {
  it('runs once per run, on the first host that changes, before that change; later hosts and plays find it done', async () => {
    const ran: string[] = [];
    const role = (tasks: Role['tasks']): Role => ({ name: 'r', beforeFirstChange: hook(ran), tasks });
    const h = harness(inventory(['h1', 'h2']), [
      { name: 'one at a time', hosts: 'all', serial: 1, roles: [role([converged, changing(ran)])] },
      { name: 'again', hosts: 'all', roles: [role([changing(ran, 'second')])] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(0);
    expect(ran.slice(0, 3)).toEqual(['snapshot on h1', 'change on h1', 'change on h2']);
    expect(ran.filter((r) => r.startsWith('snapshot'))).toHaveLength(1);
    const results = eventsOf(h.events, 'task-result').filter((e) => e.task === 'snapshot');
    expect(results.map((e) => [e.host, e.status, e.summary])).toEqual([['h1', 'changed', 'snapshot saved from h1']]);
    expect(summary.hosts.find((r) => r.host === 'h1')?.changed).toBe(3);
  });

  it('does not run when nothing changes, or when a task only waits', async () => {
    const ran: string[] = [];
    const h = harness(inventory(['h1', 'h2']), [
      { name: 'p', hosts: 'all', roles: [{ name: 'r', beforeFirstChange: hook(ran), tasks: [converged, waiting] }] },
    ]);
    expect((await runPlaybook(h.options)).exitCode).toBe(0);
    expect(ran).toEqual([]);
    expect(eventsOf(h.events, 'task-result').some((e) => e.task === 'snapshot')).toBe(false);
  });

  it('is said, not run, in check mode', async () => {
    const ran: string[] = [];
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', beforeFirstChange: hook(ran), tasks: [changing(ran)] }] }], {
      check: true,
    });
    expect((await runPlaybook(h.options)).exitCode).toBe(3);
    expect(ran).toEqual([]);
    expect(
      eventsOf(h.events, 'task-result')
        .filter((e) => e.task === 'snapshot')
        .map((e) => [e.status, e.summary]),
    ).toEqual([['changed', 'snapshot']]);
  });

  it('failing, stops the change on its host and on the others sharing it: nothing changed', async () => {
    const ran: string[] = [];
    const h = harness(inventory(['h1', 'h2']), [
      { name: 'p', hosts: 'all', roles: [{ name: 'r', beforeFirstChange: hook(ran, true), tasks: [changing(ran)] }] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    // Both hosts start together: whichever comes first runs it, the other waits for it.
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/^snapshot on h[12]$/);
    const first = ran[0]!.slice('snapshot on '.length);
    const failed = new Map(eventsOf(h.events, 'host-failed').map((e) => [e.host, e.error]));
    expect(failed.get(first)).toContain('snapshot, before this change, failed (nothing was changed)');
    expect(failed.get(first === 'h1' ? 'h2' : 'h1')).toContain('snapshot failed on another host');
  });
});
