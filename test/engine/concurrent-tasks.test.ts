// A role's concurrentTasks (types.ts), with the harness's fake connection (local /bin/sh per
// host): at most that many of its tasks run at once on a host, all of them run, and a failure
// starts no further task but lets the running ones end before the host stops.
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { harness, inventory, runTask } from './support/harness.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tasks that record how many of them run at the same moment, the named one failing. */
function countedRole(width: number | undefined, count: number, failing?: string) {
  let running = 0;
  const seen = { most: 0, started: [] as string[], ended: [] as string[] };
  const role: Role = {
    name: 'r',
    ...(width !== undefined ? { concurrentTasks: width } : {}),
    tasks: Array.from({ length: count }, (_, i) =>
      runTask(`t${i}`, async () => {
        seen.started.push(`t${i}`);
        running += 1;
        seen.most = Math.max(seen.most, running);
        await pause(i === 0 ? 60 : 20);
        running -= 1;
        seen.ended.push(`t${i}`);
        if (`t${i}` === failing) throw new Error('import failed');
      }),
    ),
  };
  return { role, seen };
}

describe('a role with concurrentTasks', () => {
  it('runs every task, never more than that many at once on a host', async () => {
    const { role, seen } = countedRole(3, 7);
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(0);
    expect(seen.most).toBe(3);
    expect([...seen.ended].sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
    expect(h.events.filter((e) => e.type === 'task-result').length).toBe(7);
  });

  it('runs them one by one without it', async () => {
    const { role, seen } = countedRole(undefined, 4);
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    await runPlaybook(h.options);
    expect(seen.most).toBe(1);
    expect(seen.ended).toEqual(['t0', 't1', 't2', 't3']);
  });

  it('starts no task after a failure, and the running ones end before the host stops', async () => {
    const { role, seen } = countedRole(2, 6, 't1');
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    // t1 fails at 20 ms while t0 (60 ms) still runs: nothing starts after, t0 still ends.
    expect(seen.started).toEqual(['t0', 't1']);
    expect(seen.ended).toEqual(['t1', 't0']);
    const failed = h.events.find((e) => e.type === 'host-failed') as { error: string } | undefined;
    expect(failed?.error).toBe('h1: r / t1: import failed');
    const hostFailedAt = h.events.findIndex((e) => e.type === 'host-failed');
    const t0Result = h.events.findIndex((e) => e.type === 'task-result' && (e as { task?: string }).task === 't0');
    expect(t0Result).toBeGreaterThan(-1);
    expect(t0Result).toBeLessThan(hostFailedAt);
  });

  it('refuses a width that is not a whole number of at least 1', async () => {
    const { role } = countedRole(0, 2);
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    expect((h.events.find((e) => e.type === 'host-failed') as { error: string }).error).toMatch(
      /concurrentTasks must be a whole number of at least 1 \(got 0\)/,
    );
  });
});
