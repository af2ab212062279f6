// How plays run (fake connection: local /bin/sh per host): order, serial batches, failure
// limits, anyErrorsFatal, interruption, become for facts, role vars and run-scoped shared values.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Play, Role } from '../../src/orchestrator/engine/types.js';
import { eventsOf, fileFact, fileTask, harness, hostDir, inventory, runTask, sleep } from './support/harness.js';

describe('plays (fake connection: local /bin/sh per host)', () => {
  it('runs plays in order, each host its roles in order, tasks in order; the play is the barrier', async () => {
    const log: string[] = [];
    const step = (name: string, ms: (host: string) => number): AnyTask =>
      runTask(name, async (host) => {
        log.push(`${host}:${name}:start`);
        await sleep(ms(host));
        log.push(`${host}:${name}:end`);
      });
    // h1 is slow, h2 fast: h2 runs ahead through its roles, but waits for h1 at the play boundary.
    const delay = (host: string): number => (host === 'h1' ? 30 : 1);
    const plays: Play[] = [
      {
        name: 'p1',
        hosts: 'all',
        roles: [
          { name: 'a', tasks: [step('a1', delay), step('a2', delay)] },
          { name: 'b', tasks: [step('b1', delay)] },
        ],
      },
      { name: 'p2', hosts: 'all', roles: [{ name: 'c', tasks: [step('c1', () => 1)] }] },
    ];
    const h = harness(inventory(['h1', 'h2']), plays);
    await runPlaybook(h.options);
    const of = (host: string): string[] => log.filter((l) => l.startsWith(`${host}:`) && l.endsWith(':start')).map((l) => l.split(':')[1]!);
    expect(of('h1')).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(of('h2')).toEqual(['a1', 'a2', 'b1', 'c1']);
    // no barrier between roles: h2 finished role b before h1 finished role a
    expect(log.indexOf('h2:b1:end')).toBeLessThan(log.indexOf('h1:a2:end'));
    // the play is a barrier: nobody starts p2 before everybody finished p1
    expect(Math.min(log.indexOf('h1:c1:start'), log.indexOf('h2:c1:start'))).toBeGreaterThan(log.indexOf('h1:b1:end'));
    expect(h.events.map((e) => e.type).filter((t) => t.startsWith('play') || t.startsWith('run'))).toEqual([
      'run-start',
      'play-start',
      'play-end',
      'play-start',
      'play-end',
      'run-end',
    ]);
  });

  it('runs serial batches one after the other ("50%" of 4 hosts = 2 per batch)', async () => {
    const log: string[] = [];
    const task = runTask('t', async (host) => {
      log.push(`start:${host}`);
      await sleep(10);
      log.push(`end:${host}`);
    });
    const h = harness(inventory(['h1', 'h2', 'h3', 'h4']), [{ name: 'p', hosts: 'all', serial: '50%', roles: [{ name: 'r', tasks: [task] }] }]);
    await runPlaybook(h.options);
    const firstOfSecondBatch = Math.min(log.indexOf('start:h3'), log.indexOf('start:h4'));
    expect(firstOfSecondBatch).toBeGreaterThan(Math.max(log.indexOf('end:h1'), log.indexOf('end:h2')));
    expect(log.indexOf('start:h2')).toBeLessThan(log.indexOf('end:h1'));
  });

  it('aborts the play and the run when a batch fails more than maxFailPercentage', async () => {
    const seen: string[] = [];
    const task = runTask('t', async (host) => {
      seen.push(host);
      if (host === 'h1') throw new Error('bad');
    });
    const later: Role = { name: 'later', tasks: [runTask('later', async (host) => void seen.push(`later:${host}`))] };
    const h = harness(inventory(['h1', 'h2', 'h3', 'h4']), [
      { name: 'p', hosts: 'all', serial: 2, maxFailPercentage: 49, roles: [{ name: 'r', tasks: [task] }] },
      { name: 'q', hosts: 'all', roles: [later] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(seen.sort()).toEqual(['h1', 'h2']);
    expect(summary.exitCode).toBe(ExitCode.HostsFailed);
    expect(eventsOf(h.events, 'play-end')).toMatchObject([{ play: 'p', aborted: 'play "p": 1 of 2 hosts in the batch failed, more than the allowed 49%' }]);

    // At 50% one failure in a batch of two is allowed: every batch and the next play run.
    seen.length = 0;
    const tolerant = harness(inventory(['h1', 'h2', 'h3', 'h4']), [
      { name: 'p', hosts: 'all', serial: 2, maxFailPercentage: 50, roles: [{ name: 'r', tasks: [task] }] },
      { name: 'q', hosts: 'all', roles: [later] },
    ]);
    await runPlaybook(tolerant.options);
    expect(seen.sort()).toEqual(['h1', 'h2', 'h3', 'h4', 'later:h2', 'later:h3', 'later:h4']);
  });

  it('anyErrorsFatal: the other hosts stop before their next task, nothing later runs', async () => {
    const done: string[] = [];
    const first = runTask('first', async (host) => {
      if (host === 'h1') throw new Error('broken');
      await sleep(40);
      done.push(`${host}:first`);
    });
    const second = runTask('second', async (host) => void done.push(`${host}:second`));
    const h = harness(inventory(['h1', 'h2', 'h3']), [
      { name: 'p', hosts: 'all', anyErrorsFatal: true, roles: [{ name: 'r', tasks: [first, second] }] },
      { name: 'q', hosts: 'all', roles: [{ name: 's', tasks: [second] }] },
    ]);
    const summary = await runPlaybook(h.options);
    // h2 and h3 finish the task they were on, then stop; play q never starts
    expect(done.sort()).toEqual(['h2:first', 'h3:first']);
    expect(summary.exitCode).toBe(ExitCode.HostsFailed);
    expect(summary.hosts.map((x) => [x.host, x.failed, x.changed])).toEqual([
      ['h1', 1, 0],
      ['h2', 0, 1],
      ['h3', 0, 1],
    ]);
    expect(eventsOf(h.events, 'host-stopped').map((e) => [e.host, e.reason])).toEqual([
      ['h2', 'h2: stopped before second: play "p" has anyErrorsFatal and h1 failed'],
      ['h3', 'h3: stopped before second: play "p" has anyErrorsFatal and h1 failed'],
    ]);
    expect(eventsOf(h.events, 'play-start').map((e) => e.play)).toEqual(['p']);
  });

  it('a cleanup play (always) runs after a play stopped the run, on the failed host too, over the same connection; the plays between are skipped', async () => {
    const done: string[] = [];
    const first = runTask('first', async (host) => {
      if (host === 'h1') throw new Error('broken');
      done.push(`${host}:first`);
    });
    const between = runTask('between', async (host) => void done.push(`${host}:between`));
    const cleanup = runTask('cleanup', async (host) => void done.push(`${host}:cleanup`));
    const h = harness(inventory(['h1', 'h2']), [
      { name: 'p', hosts: 'all', anyErrorsFatal: true, roles: [{ name: 'r', tasks: [first] }] },
      { name: 'q', hosts: 'all', roles: [{ name: 's', tasks: [between] }] },
      { name: 'c', hosts: 'all', always: true, roles: [{ name: 'c', tasks: [cleanup] }] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(done.sort()).toEqual(['h1:cleanup', 'h2:cleanup', 'h2:first']);
    expect(eventsOf(h.events, 'play-start').map((e) => e.play)).toEqual(['p', 'c']);
    // the failure stays in the recap: the cleanup does not make the run a success
    expect(summary.exitCode).toBe(ExitCode.HostsFailed);
    expect(summary.hosts.map((x) => [x.host, x.failed])).toEqual([
      ['h1', 1],
      ['h2', 0],
    ]);

    // without a failure the cleanup play runs like any other, after the others
    done.length = 0;
    const fine = harness(inventory(['h1', 'h2']), [
      { name: 'q', hosts: 'all', roles: [{ name: 's', tasks: [between] }] },
      { name: 'c', hosts: 'all', always: true, roles: [{ name: 'c', tasks: [cleanup] }] },
    ]);
    expect((await runPlaybook(fine.options)).exitCode).toBe(ExitCode.Success);
    expect(done.sort()).toEqual(['h1:between', 'h1:cleanup', 'h2:between', 'h2:cleanup']);
  });

  it('on interruption starts nothing new, lets running work and its handlers finish, exit 130', async () => {
    const controller = new AbortController();
    const done: string[] = [];
    const first = runTask(
      'first',
      async (host) => {
        controller.abort();
        await sleep(20);
        done.push(`${host}:first`);
      },
      { notify: ['reload'] },
    );
    const second = runTask('second', async (host) => void done.push(`${host}:second`));
    const role: Role = { name: 'r', tasks: [first, second], handlers: [{ name: 'reload', run: async (ctx) => void done.push(`${ctx.host.name}:reload`) }] };
    const h = harness(
      inventory(['h1', 'h2', 'h3']),
      [
        { name: 'p', hosts: 'all', roles: [role] },
        { name: 'q', hosts: 'all', roles: [role] },
      ],
      { concurrency: 1, signal: controller.signal },
    );
    const summary = await runPlaybook(h.options);
    expect(done).toEqual(['h1:first', 'h1:reload']);
    expect(summary).toMatchObject({ exitCode: ExitCode.Interrupted, interrupted: true });
    expect(eventsOf(h.events, 'host-stopped')).toMatchObject([{ host: 'h1', reason: 'h1: interrupted before second' }]);
    expect(eventsOf(h.events, 'host-start').map((e) => e.host)).toEqual(['h1']);
    expect(h.events.at(-1)!.type).toBe('run-end');
  });

  it('an interruption before the run starts touches no host', async () => {
    const controller = new AbortController();
    controller.abort();
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [runTask('t', async () => {})] }] }], {
      signal: controller.signal,
    });
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(ExitCode.Interrupted);
    expect(h.connections.size).toBe(0);
  });

  it('gathers a role facts with become when any of them needs root, in the same one command', async () => {
    const dir = hostDir('become', 'h1');
    const plain = fileTask('plain', () => join(dir, 'a'), '');
    const rooted: AnyTask = { ...fileTask('rooted', () => join(dir, 'b'), ''), facts: () => ({ current: fileFact(join(dir, 'b'), true) }) };
    const h = harness(inventory(['h1']), [
      {
        name: 'p',
        hosts: 'all',
        roles: [
          { name: 'plain', tasks: [plain] },
          { name: 'root', tasks: [plain, rooted] },
        ],
      },
    ]);
    await runPlaybook(h.options);
    // role "root" reuses the fresh fact of "plain" and gathers only its own, as root
    expect(h.connections.get('h1')!.commands.map((c) => [c.label, c.become])).toEqual([
      ['facts:plain', false],
      ['facts:root', true],
    ]);
  });

  it('gives tasks the role defaults deep-merged under host vars, and run-scoped shared values', async () => {
    const seen: Record<string, unknown>[] = [];
    const publisher = runTask('publish', async () => {}, {
      apply: async (_c, ctx) => {
        if (ctx.host.name === 'h1') ctx.publish('token', `from-${ctx.host.name}`);
      },
    });
    const reader: AnyTask = {
      name: 'read',
      facts: () => ({}),
      plan: (_f, ctx) => {
        seen.push({ host: ctx.host.name, vars: ctx.vars, token: ctx.shared.get('token'), cli: ctx.shared.get('cli') });
        return { kind: 'none', reason: 'read' };
      },
      apply: async () => {},
    };
    const role: Role = { name: 'r', defaults: { kubelet: { port: 10250, flags: ['a'] }, keep: 'default' }, tasks: [reader] };
    const inv = inventory(['h1', 'h2'], 'vars:\n  kubelet: { flags: [b] }\n');
    const h = harness(
      inv,
      [
        { name: 'first', hosts: 'h1', roles: [{ name: 'pub', tasks: [publisher] }] },
        { name: 'second', hosts: 'all', roles: [role] },
      ],
      { shared: new Map([['cli', 'given']]) },
    );
    await runPlaybook(h.options);
    expect(seen).toHaveLength(2);
    for (const s of seen) {
      expect(s).toMatchObject({ vars: { kubelet: { port: 10250, flags: ['b'] }, keep: 'default' }, token: 'from-h1', cli: 'given' });
    }
  });
});
