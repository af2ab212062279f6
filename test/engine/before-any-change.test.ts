// The run-wide barrier before the first change on any host (RunOptions.beforeAnyChange, what
// the state store publishes through), with the harness's connection (local /bin/sh per host):
// once per run, before the first change and not before a converged task or a wait; not in check
// mode; a failure stops every host before its change.
import { describe, expect, it } from 'vitest';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import { convergedTask, eventsOf, harness, inventory, recordingTask, waitingTask } from './support/harness.js';

const changing = recordingTask;
const converged = convergedTask;
const waiting = waitingTask;

describe('the barrier before any change', () => {
  it('runs once per run, before the first change on any host, across plays', async () => {
    const ran: string[] = [];
    const barrier = async (): Promise<void> => {
      ran.push('barrier');
      await new Promise((r) => setTimeout(r, 50));
      ran.push('barrier done');
    };
    const h = harness(
      inventory(['h1', 'h2', 'h3']),
      [
        { name: 'first', hosts: 'all', roles: [{ name: 'r', tasks: [converged, waiting, changing(ran)] }] },
        { name: 'second', hosts: 'all', roles: [{ name: 'r2', tasks: [changing(ran, 'again')] }] },
      ],
      { beforeAnyChange: barrier },
    );
    expect((await runPlaybook(h.options)).exitCode).toBe(0);
    expect(ran.filter((r) => r.startsWith('barrier'))).toEqual(['barrier', 'barrier done']);
    // No host changed before the barrier was done.
    expect(ran.indexOf('barrier done')).toBe(1);
    expect(ran.filter((r) => r.startsWith('change on'))).toHaveLength(3);
  });

  it('does not run on a converged run, for tasks that only wait, or in check mode', async () => {
    const ran: string[] = [];
    const barrier = async (): Promise<void> => void ran.push('barrier');
    const quiet = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [converged, waiting] }] }], { beforeAnyChange: barrier });
    expect((await runPlaybook(quiet.options)).exitCode).toBe(0);
    const check = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [changing(ran)] }] }], {
      beforeAnyChange: barrier,
      check: true,
    });
    expect((await runPlaybook(check.options)).exitCode).toBe(3);
    expect(ran).toEqual([]);
  });

  it('failing, stops every host before its change, naming why', async () => {
    const ran: string[] = [];
    const h = harness(inventory(['h1', 'h2']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [changing(ran)] }] }], {
      beforeAnyChange: async () => {
        throw new Error('the state store did not answer');
      },
    });
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).not.toBe(0);
    expect(ran).toEqual([]);
    const failed = eventsOf(h.events, 'task-result').filter((e) => e.status === 'failed');
    expect(failed.map((e) => e.host).sort()).toEqual(['h1', 'h2']);
    for (const e of failed) expect(e.error).toContain(`before the first change of this run: the state store did not answer; nothing was changed on ${e.host}`);
  });
});
