// The engine over a fake connection (each host's commands run in the local /bin/sh, against
// its own temp directory): converge cost, stale facts, handlers, check mode, failures,
// unreachable hosts, concurrency, verify, limits and tags.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/orchestrator/engine/input-error.js';
import { runPlaybook } from '../../src/orchestrator/engine/run-playbook.js';
import type { AnyTask, Play, Role } from '../../src/orchestrator/engine/types.js';
import { UnreachableError } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { eventsOf, fileFact, fileTask, harness, hostDir, inventory, runTask, sleep } from './support/harness.js';
import { HostError } from '../../src/orchestrator/ssh/host-error.js';

const oneRole = (role: Role): Play[] => [{ name: 'p', hosts: 'all', roles: [role] }];

describe('runPlaybook (fake connection: local /bin/sh per host)', () => {
  it('applies, then re-checks a converged role in exactly one command per host', async () => {
    const hosts = ['h1', 'h2', 'h3'];
    const f = (n: string) => (h: string) => join(hostDir('converge', h), n);
    const role: Role = { name: 'r', tasks: [fileTask('a', f('a'), 'A'), fileTask('b', f('b'), 'B'), fileTask('c', f('c'), 'C')] };
    const first = harness(inventory(hosts), oneRole(role));
    const summary = await runPlaybook(first.options);
    expect(summary.exitCode).toBe(0);
    expect(summary.hosts.map((h) => h.changed)).toEqual([3, 3, 3]);
    expect(readFileSync(f('b')('h2'), 'utf8')).toBe('B');

    const second = harness(inventory(hosts), oneRole(role));
    const again = await runPlaybook(second.options);
    expect(again.hosts.map((h) => [h.changed, h.ok, h.roundTrips])).toEqual([
      [0, 3, 1],
      [0, 3, 1],
      [0, 3, 1],
    ]);
    expect([...second.connections.values()].map((c) => c.commands.map((x) => x.label))).toEqual([['facts:r'], ['facts:r'], ['facts:r']]);
    const gathered = eventsOf(second.events, 'facts-gathered');
    expect(gathered.map((e) => [e.host, e.keys.length, e.roundTrips]).sort()).toEqual(hosts.map((h) => [h, 3, 1]));
  });

  it("closes a host's connection once its last play is done, while the others still work", async () => {
    const f = (n: string) => (h: string) => join(hostDir('early-close', h), n);
    const quick: Role = { name: 'quick', tasks: [fileTask('a', f('a'), 'A')] };
    const slow: Role = { name: 'slow', tasks: [runTask('wait', () => sleep(150)), fileTask('b', f('b'), 'B')] };
    const plays: Play[] = [
      { name: 'both', hosts: 'all', roles: [quick] },
      { name: 'second only', hosts: 'h2', roles: [slow] },
    ];
    const h = harness(inventory(['h1', 'h2']), plays);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(0);
    const [h1, h2] = [h.connections.get('h1')!, h.connections.get('h2')!];
    // h1 is done after the first play: closed before h2 ran anything of the second one ...
    const h2Second = h2.commands.filter((c) => c.label.endsWith(':slow') || c.label === 'apply:b');
    expect(h2Second.length).toBeGreaterThan(0);
    expect(h1.closedSeq).toBeLessThan(Math.min(...h2Second.map((c) => c.seq)));
    // ... and h2 kept its one connection through both plays, closed after its last command.
    expect(h2.closedSeq).toBeGreaterThan(Math.max(...h2.commands.map((c) => c.seq)));
    expect(summary.hosts.map((x) => x.unreachable)).toEqual([false, false]);
  });

  it('re-gathers after a change only the facts it made stale (own keys and "prefix*")', async () => {
    const dir = hostDir('stale', 'h1');
    const written = join(dir, 'svc-a');
    const untouched = join(dir, 'other');
    writeFileSync(untouched, 'same');
    const writer = fileTask('write', () => written, 'X', { invalidates: [`file:${join(dir, 'svc-')}*`] });
    const svcB = fileTask('read b', () => join(dir, 'svc-b'), '');
    const other = fileTask('other', () => untouched, 'same');
    const h = harness(inventory(['h1']), oneRole({ name: 'r', tasks: [writer, svcB, other] }));
    await runPlaybook(h.options);
    const commands = h.connections.get('h1')!.commands;
    // role batch (3 facts), apply, verify (svc-a), then svc-b again (made stale by the prefix)
    expect(commands.map((c) => c.label)).toEqual(['facts:r', 'apply:write', 'facts:r', 'facts:r']);
    expect(eventsOf(h.events, 'facts-gathered').map((e) => e.keys)).toEqual([
      [`file:${written}`, `file:${join(dir, 'svc-b')}`, `file:${untouched}`],
      [`file:${written}`],
      [`file:${join(dir, 'svc-b')}`],
    ]);
    expect(eventsOf(h.events, 'task-result').map((e) => e.status)).toEqual(['changed', 'ok', 'ok']);
  });

  it('runs handlers once, after the role, only when a task that notified them changed', async () => {
    const f = (n: string) => () => join(hostDir('handlers', 'h1'), n);
    const calls: string[] = [];
    const role: Role = {
      name: 'r',
      tasks: [
        fileTask('a', f('a'), '1', { notify: ['restart'] }),
        fileTask('b', f('b'), '2', { notify: ['restart', 'reload'] }),
        fileTask('c', f('c'), '', { notify: ['never'] }),
      ],
      handlers: [
        { name: 'reload', run: async () => void calls.push('reload') },
        { name: 'restart', run: async () => void calls.push('restart') },
        { name: 'never', run: async () => void calls.push('never') },
      ],
    };
    const h = harness(inventory(['h1']), oneRole(role));
    await runPlaybook(h.options);
    // definition order, not notification order; "never" was notified by a task that did not change
    expect(calls).toEqual(['reload', 'restart']);
    const order = h.events
      .filter((e) => e.type === 'task-result' || e.type === 'handler-result')
      .map((e) => ('task' in e ? e.task : `handler:${(e as { handler: string }).handler}`));
    expect(order).toEqual(['a', 'b', 'c', 'handler:reload', 'handler:restart']);
    calls.length = 0;
    await runPlaybook(harness(inventory(['h1']), oneRole(role)).options);
    expect(calls).toEqual([]);
  });

  it('check mode applies nothing, reports pending changes, diffs and handlers that would run, exit 3', async () => {
    const file = join(hostDir('check', 'h1'), 'a');
    writeFileSync(file, 'old');
    const calls: string[] = [];
    const role: Role = {
      name: 'r',
      tasks: [fileTask('a', () => file, 'new', { notify: ['h'] })],
      handlers: [{ name: 'h', run: async () => void calls.push('h') }],
    };
    const h = harness(inventory(['h1']), oneRole(role), { check: true });
    const summary = await runPlaybook(h.options);
    expect(summary).toMatchObject({ exitCode: 3, changesPending: true, check: true });
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(calls).toEqual([]);
    expect(h.connections.get('h1')!.commands.map((c) => c.label)).toEqual(['facts:r']);
    expect(eventsOf(h.events, 'task-result')).toMatchObject([{ status: 'changed', summary: 'set a', diff: '-old\n+new', check: true }]);
    expect(eventsOf(h.events, 'handler-result')).toMatchObject([{ handler: 'h', status: 'changed', check: true }]);

    const noDiff = harness(inventory(['h1']), oneRole(role), { check: true, diff: false });
    await runPlaybook(noDiff.options);
    expect(eventsOf(noDiff.events, 'task-result')[0]).not.toHaveProperty('diff');
  });

  it('isolates a failing host: the others finish, it skips later plays, exit 4', async () => {
    const f = (n: string) => (h: string) => join(hostDir('fail', h), n);
    const boom = runTask('boom', async (host) => {
      if (host === 'h2') throw new Error('disk full');
    });
    const later: Role = { name: 'later', tasks: [fileTask('later', f('later'), 'L')] };
    const h = harness(inventory(['h1', 'h2', 'h3']), [
      { name: 'one', hosts: 'all', roles: [{ name: 'r', tasks: [boom] }] },
      { name: 'two', hosts: 'all', roles: [later] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    expect(summary.hosts.find((x) => x.host === 'h2')).toMatchObject({ failed: 1, error: 'h2: r / boom: disk full' });
    expect(eventsOf(h.events, 'host-failed')).toMatchObject([{ host: 'h2', play: 'one', error: 'h2: r / boom: disk full' }]);
    expect(eventsOf(h.events, 'play-start').map((e) => e.hosts)).toEqual([
      ['h1', 'h2', 'h3'],
      ['h1', 'h3'],
    ]);
    expect(existsSync(f('later')('h1'))).toBe(true);
    expect(existsSync(f('later')('h2'))).toBe(false);
    expect(existsSync(f('later')('h3'))).toBe(true);
  });

  it('says which fact could not be read, and fails only that host', async () => {
    const bad: AnyTask = {
      name: 'bad fact',
      facts: (ctx) => ({
        n: {
          key: `number:${ctx.host.name}`,
          script: sh`echo ${ctx.host.name === 'h1' ? 'seven' : '7'}`,
          parse: (s: string) => {
            if (!/^\d+\n$/.test(s)) throw new Error(`not a number: ${s.trim()}`);
            return Number(s);
          },
        },
      }),
      plan: () => ({ kind: 'none', reason: 'fine' }),
      apply: async () => {},
    };
    const h = harness(inventory(['h1', 'h2']), oneRole({ name: 'r', tasks: [bad] }));
    const summary = await runPlaybook(h.options);
    expect(summary.hosts.map((x) => [x.host, x.failed, x.ok])).toEqual([
      ['h1', 1, 0],
      ['h2', 0, 1],
    ]);
    expect(summary.hosts[0]!.error).toBe('h1: r: fact number:h1: cannot read it (exit 0): not a number: seven');
  });

  it('marks a host unreachable when connecting fails, whatever the error, exit 5', async () => {
    const h = harness(inventory(['h1', 'h2', 'h3']), oneRole({ name: 'r', tasks: [fileTask('a', (x) => join(hostDir('unreach', x), 'a'), 'A')] }));
    const connect = h.options.connect;
    const summary = await runPlaybook({
      ...h.options,
      connect: async (host, signal) => {
        if (host.name === 'h2') throw new UnreachableError('h2', 'connection refused');
        if (host.name === 'h3') throw new HostError('h3', 'authentication failed for user root');
        return connect(host, signal);
      },
    });
    expect(summary.exitCode).toBe(5);
    expect(summary.hosts.map((x) => [x.host, x.unreachable, x.changed, x.failed])).toEqual([
      ['h1', false, 1, 0],
      ['h2', true, 0, 0],
      ['h3', true, 0, 0],
    ]);
    expect(
      eventsOf(h.events, 'host-unreachable')
        .map((e) => e.error)
        .sort(),
    ).toEqual(['h2: unreachable: connection refused', 'h3: unreachable: authentication failed for user root']);
  });

  it('marks a host unreachable when its connection breaks mid-role, and opens one connection per host', async () => {
    const f = (n: string) => (h: string) => join(hostDir('broken', h), n);
    let opened = 0;
    const h = harness(inventory(['h1', 'h2']), [
      { name: 'one', hosts: 'all', roles: [{ name: 'r', tasks: [fileTask('a', f('a'), 'A')] }] },
      { name: 'two', hosts: 'all', roles: [{ name: 's', tasks: [fileTask('b', f('b'), 'B')] }] },
    ]);
    const connect = h.options.connect;
    const summary = await runPlaybook({
      ...h.options,
      connect: async (host, signal) => {
        opened += 1;
        const c = await connect(host, signal);
        if (host.name === 'h2')
          h.connections.get('h2')!.beforeExec = (label) => {
            if (label === 'apply:a') throw new UnreachableError('h2', 'the SSH connection is closed');
          };
        return c;
      },
    });
    expect(opened).toBe(2);
    expect(summary.exitCode).toBe(5);
    expect(summary.hosts.map((x) => [x.host, x.unreachable, x.failed, x.changed])).toEqual([
      ['h1', false, 0, 2],
      ['h2', true, 0, 0],
    ]);
    expect(eventsOf(h.events, 'play-start').map((e) => e.hosts)).toEqual([['h1', 'h2'], ['h1']]);
  });

  it('never works on more hosts at once than the concurrency allows, and does reach it', async () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7'];
    let inFlight = 0;
    let peak = 0;
    const slow = runTask('slow', async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await sleep(25);
      inFlight -= 1;
    });
    // Two plays: the bound holds for the run, and each host's work counts once.
    const plays: Play[] = [
      { name: 'p1', hosts: 'all', roles: [{ name: 'r', tasks: [slow] }] },
      { name: 'p2', hosts: 'all', roles: [{ name: 'r', tasks: [slow, slow] }] },
    ];
    const summary = await runPlaybook(harness(inventory(hosts), plays, { concurrency: 3 }).options);
    expect(peak).toBe(3);
    expect(summary.hosts.every((h) => h.changed === 3)).toBe(true);
  });

  it('a plan reads what other hosts gathered in an earlier play (factOf), and undefined for what they did not', async () => {
    const hosts = ['h1', 'h2', 'h3'];
    const marker = (h: string) => join(hostDir('fact-of', h), 'id');
    for (const h of hosts) writeFileSync(marker(h), `id-${h}`);
    const idFact = (h: string) => fileFact(marker(h));
    const gather: AnyTask = {
      name: 'read id',
      facts: (ctx) => ({ id: idFact(ctx.host.name) }),
      plan: (facts: { id: string }) => ({ kind: 'none', reason: facts.id }),
      apply: async () => {},
    };
    const seen: Record<string, (string | undefined)[]> = {};
    const compare: AnyTask = {
      name: 'compare',
      facts: () => ({}),
      plan: (_facts, ctx) => {
        seen[ctx.host.name] = hosts.map((h) => ctx.factOf(h, idFact(h)));
        return { kind: 'none', reason: 'compared' };
      },
      apply: async () => {},
    };
    const plays: Play[] = [
      { name: 'gather', hosts: ['h1', 'h2'], roles: [{ name: 'g', tasks: [gather] }] },
      { name: 'compare', hosts: 'all', roles: [{ name: 'c', tasks: [compare] }] },
    ];
    const summary = await runPlaybook(harness(inventory(hosts), plays).options);
    expect(summary.exitCode).toBe(0);
    for (const h of hosts) expect(seen[h]).toEqual(['id-h1', 'id-h2', undefined]);
  });

  it('bounds large transfers across every host of the run by transferConcurrency, default 8', async () => {
    const hosts = Array.from({ length: 12 }, (_, i) => `h${i + 1}`);
    const peakWith = async (extra: { transferConcurrency?: number }): Promise<number> => {
      let inFlight = 0;
      let peak = 0;
      const upload: AnyTask = {
        ...runTask('upload', async () => undefined),
        apply: async (_change, ctx) =>
          ctx.transfers.run(async () => {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await sleep(20);
            inFlight -= 1;
          }),
      };
      const summary = await runPlaybook(harness(inventory(hosts), oneRole({ name: 'r', tasks: [upload, upload] }), extra).options);
      expect(summary.exitCode).toBe(0);
      return peak;
    };
    expect(await peakWith({ transferConcurrency: 2 })).toBe(2);
    expect(await peakWith({})).toBe(8);
  });

  it('fails a task whose apply does not converge, naming what is still planned', async () => {
    const file = join(hostDir('converge-fail', 'h1'), 'a');
    const liar: AnyTask = { ...fileTask('liar', () => file, 'A'), apply: async () => {} };
    const summary = await runPlaybook(harness(inventory(['h1']), oneRole({ name: 'r', tasks: [liar] })).options);
    expect(summary.hosts[0]!.error).toBe('h1: r / liar: did not converge: set liar (still planned after apply)');
    expect(summary.exitCode).toBe(4);
  });

  it('calls a custom verify instead of re-planning, and skips the check when verify is false', async () => {
    const file = join(hostDir('verify', 'h1'), 'a');
    const verified: string[] = [];
    const custom: AnyTask = { ...fileTask('custom', () => file, 'A'), apply: async () => {}, verify: async (ctx) => void verified.push(ctx.host.name) };
    const none: AnyTask = { ...fileTask('none', () => file, 'B'), apply: async () => {}, verify: false };
    const h = harness(inventory(['h1']), oneRole({ name: 'r', tasks: [custom, none] }));
    const summary = await runPlaybook(h.options);
    expect(verified).toEqual(['h1']);
    expect(summary.hosts[0]).toMatchObject({ changed: 2, failed: 0 });
    expect(h.connections.get('h1')!.commands.map((c) => c.label)).toEqual(['facts:r', 'facts:r']);
  });

  it('honours --limit (names, groups, !x), rejects unknown terms before connecting', async () => {
    const f = (n: string) => (h: string) => join(hostDir('limit', h), n);
    const plays = oneRole({ name: 'r', tasks: [fileTask('a', f('a'), 'A')] });
    const inv = inventory(['h1', 'h2', 'h3']);
    const byName = await runPlaybook(harness(inv, plays, { limit: ['h2'] }).options);
    expect(byName.hosts.map((x) => x.host)).toEqual(['h2']);
    const byGroup = await runPlaybook(harness(inv, plays, { limit: ['worker', '!h3'] }).options);
    expect(byGroup.hosts.map((x) => x.host)).toEqual(['h2']);
    const unknown = harness(inv, plays, { limit: ['h9'] });
    await expect(runPlaybook(unknown.options)).rejects.toThrow(InputError);
    await expect(runPlaybook(unknown.options)).rejects.toThrow('--limit: no host or group named "h9"');
    expect(unknown.connections.size).toBe(0);
    expect(unknown.events).toEqual([]);
  });

  it('selects tasks by --tags on the task, the role or the role name, and drops --skip-tags', async () => {
    const f = (n: string) => (h: string) => join(hostDir('tags', h), n);
    const web: Role = { name: 'web', tags: ['frontend'], tasks: [fileTask('w1', f('w1'), '1'), fileTask('w2', f('w2'), '2', { tags: ['slow'] })] };
    const db: Role = { name: 'db', tasks: [fileTask('d1', f('d1'), '1', { tags: ['alpha'] }), fileTask('d2', f('d2'), '2')] };
    const plays: Play[] = [{ name: 'p', hosts: 'all', roles: [web, db] }];
    const ran = async (extra: { tags?: string[]; skipTags?: string[] }): Promise<string[]> => {
      const h = harness(inventory(['h1']), plays, { check: true, ...extra });
      await runPlaybook(h.options);
      return eventsOf(h.events, 'task-result').map((e) => e.task);
    };
    expect(await ran({ tags: ['alpha'] })).toEqual(['d1']);
    expect(await ran({ tags: ['frontend'] })).toEqual(['w1', 'w2']);
    expect(await ran({ tags: ['db', 'slow'] })).toEqual(['w2', 'd1', 'd2']);
    expect(await ran({ skipTags: ['slow', 'db'] })).toEqual(['w1']);
    expect(await ran({ tags: ['web'], skipTags: ['slow'] })).toEqual(['w1']);
    // A role with no selected task costs nothing, not even its fact batch.
    const h = harness(inventory(['h1']), plays, { skipTags: ['web', 'db'] });
    const summary = await runPlaybook(h.options);
    expect(summary.hosts[0]!.roundTrips).toBe(0);
  });

  it('rejects a task that notifies a handler its role does not define, before touching any host', async () => {
    const task = runTask('t', async () => {}, { notify: ['restart kubelet'] });
    const h = harness(inventory(['h1']), oneRole({ name: 'r', tasks: [task], handlers: [{ name: 'restart-kubelet', run: async () => {} }] }));
    await expect(runPlaybook(h.options)).rejects.toThrow('role r, task "t" notifies handler "restart kubelet", which the role does not define');
    expect(h.connections.size).toBe(0);
  });
});
