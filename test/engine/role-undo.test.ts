// A role's undo (the engine contract, see Undo in types.ts), with the harness's fake connection
// (local /bin/sh per host): it runs once on the host where a task of the role failed, after the
// failure, and the host's error carries what it did; not on the other hosts, not in check
// mode, not when the host became unreachable or the run was told to stop, not when there is
// nothing to undo, and a failing undo is said too.
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { Role, Undo } from '../../src/orchestrator/engine/types.js';
import { harness, inventory, runTask } from './support/harness.js';
import { UnreachableError } from '../../src/orchestrator/ssh/connection.js';

function roleWithUndo(undone: string[], said: (host: string) => string | Error): Role {
  const undo: Undo = {
    name: 'put back',
    run: async (ctx, failure) => {
      undone.push(`${ctx.host.name}: ${failure}`);
      const answer = said(ctx.host.name);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return {
    name: 'r',
    undo,
    tasks: [
      runTask('first', async () => undefined),
      runTask('second', async (host) => {
        if (host === 'h1') throw new Error('component did not come back');
      }),
    ],
  };
}

describe('a role undo', () => {
  it('runs on the failed host only, after the failure, and its words follow the error', async () => {
    const undone: string[] = [];
    const h = harness(inventory(['h1', 'h2']), [{ name: 'p', hosts: 'all', roles: [roleWithUndo(undone, () => 'The change is undone on this host.')] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    expect(undone).toEqual(['h1: h1: r / second: component did not come back']);
    const failed = h.events.find((e) => e.type === 'host-failed') as { error: string } | undefined;
    expect(failed?.error).toBe('h1: r / second: component did not come back The change is undone on this host.');
    expect(h.events.filter((e) => e.type === 'undo-result').map((e) => [e['host' as never], e['status' as never], e['summary' as never]])).toEqual([
      ['h1', 'changed', 'The change is undone on this host.'],
    ]);
  });

  it('leaves the error as it was when there was nothing to undo', async () => {
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [roleWithUndo([], () => '')] }]);
    await runPlaybook(h.options);
    expect((h.events.find((e) => e.type === 'host-failed') as { error: string }).error).toBe('h1: r / second: component did not come back');
  });

  it('says when the undo failed too', async () => {
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [roleWithUndo([], () => new Error('disk full'))] }]);
    await runPlaybook(h.options);
    expect((h.events.find((e) => e.type === 'host-failed') as { error: string }).error).toMatch(
      /^h1: r \/ second: component did not come back Undoing it \(put back\) failed too: .*disk full/,
    );
  });

  it('does not run in check mode, where the same failure makes it run in apply mode', async () => {
    // The second task fails while it plans, in both modes: the host fails either way.
    const failingPlan = (undone: string[]): Role => ({
      ...roleWithUndo(undone, () => 'undone'),
      tasks: [
        runTask('first', async () => undefined),
        runTask('second', async () => undefined, {
          plan: () => {
            throw new Error('cannot plan');
          },
        }),
      ],
    });
    const inCheck: string[] = [];
    const check = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [failingPlan(inCheck)] }], { check: true });
    await runPlaybook(check.options);
    expect(check.events.some((e) => e.type === 'host-failed')).toBe(true);
    expect(inCheck).toEqual([]);
    const inApply: string[] = [];
    await runPlaybook(harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [failingPlan(inApply)] }]).options);
    expect(inApply).toHaveLength(1);
  });

  it('does not run when the host became unreachable during the role', async () => {
    const undone: string[] = [];
    const role: Role = {
      ...roleWithUndo(undone, () => 'undone'),
      tasks: [
        runTask('first', async () => undefined),
        runTask('second', async (host) => {
          throw new UnreachableError(host, 'the connection was reset');
        }),
      ],
    };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(5);
    expect(undone).toEqual([]);
    expect(h.events.filter((e) => e.type === 'undo-result')).toEqual([]);
  });

  it('does not run when the run was told to stop (Ctrl-C) during the role', async () => {
    const undone: string[] = [];
    const stop = new AbortController();
    const role: Role = {
      ...roleWithUndo(undone, () => 'undone'),
      tasks: [
        runTask('first', async () => undefined),
        runTask('second', async () => {
          stop.abort(new Error('interrupted'));
          await new Promise((r) => setTimeout(r, 50));
        }),
        runTask('third', async () => undefined),
      ],
    };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }], { signal: stop.signal });
    const summary = await runPlaybook(h.options);
    expect(summary.interrupted).toBe(true);
    expect(undone).toEqual([]);
  });
});
