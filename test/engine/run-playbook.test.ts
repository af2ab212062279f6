// The engine over a fake connection (each host's commands run in the local /bin/sh, against
// its own temp directory): order, batching, handlers, check mode, failures, limits, tags.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { noChange, type Change } from '../../src/engine/change.js';
import type { Fact } from '../../src/engine/fact.js';
import type { RunEvent } from '../../src/engine/events.js';
import { InputError } from '../../src/engine/input-error.js';
import { runPlaybook, type RunOptions } from '../../src/engine/run-playbook.js';
import type { AnyTask, Play, Role } from '../../src/engine/types.js';
import type { Inventory } from '../../src/inventory/model.js';
import { parseInventory } from '../../src/inventory/load-inventory.js';
import { UnreachableError } from '../../src/ssh/connection.js';
import { sh } from '../../src/ssh/quote.js';
import { LocalShellConnection } from './support/local-shell-connection.js';

const root = mkdtempSync(join(tmpdir(), 'kc-engine-'));

function inventory(names: string[]): Inventory {
  const hosts = names.map((n, i) => `  - { name: ${n}, address: 10.9.0.${i + 1}, roles: [${i === 0 ? 'control-plane' : 'worker'}] }`).join('\n');
  const result = parseInventory(`hosts:\n${hosts}\n`, join(root, 'inv.yaml'), { env: { SSH_AUTH_SOCK: '/x' }, homeDir: root });
  if (!result.ok) throw new Error('bad test inventory');
  return result.inventory;
}

/** A fact: the content of a file in the host's temp dir ("" when absent). */
const fileFact = (path: string): Fact<string> => ({
  key: `file:${path}`,
  script: sh`cat ${path} 2>/dev/null || true`,
  parse: (stdout) => stdout,
});

/** A task that makes a file hold a value; applies by writing it. */
function fileTask(name: string, file: (host: string) => string, value: string, extra: Partial<AnyTask> = {}): AnyTask {
  return {
    name,
    facts: (ctx) => ({ current: fileFact(file(ctx.host.name)) }),
    plan: (facts: { current: string }): Change<string> =>
      facts.current === value ? noChange('already set') : { kind: 'update', summary: `set ${name}`, diff: `-${facts.current}\n+${value}`, payload: value },
    apply: async (change, ctx) => {
      await ctx.connection.exec(sh`printf '%s' ${change.payload as string} > ${file(ctx.host.name)}`);
    },
    ...extra,
  };
}

interface Harness {
  events: RunEvent[];
  connections: Map<string, LocalShellConnection>;
  options: RunOptions;
}

function harness(inv: Inventory, plays: Play[], extra: Partial<RunOptions> = {}, tweak?: (c: LocalShellConnection) => void): Harness {
  const events: RunEvent[] = [];
  const connections = new Map<string, LocalShellConnection>();
  const options: RunOptions = {
    inventory: inv,
    playbook: { name: 'test', description: '', plays },
    connect: async (host) => {
      const c = new LocalShellConnection(host.name);
      tweak?.(c);
      connections.set(host.name, c);
      return c;
    },
    concurrency: 64,
    check: false,
    diff: true,
    events: { emit: (e) => events.push(e) },
    signal: new AbortController().signal,
    ...extra,
  };
  return { events, connections, options };
}

function hostDir(run: string, host: string): string {
  return join(root, run, host);
}

function setupDirs(run: string, hosts: string[]): void {
  for (const h of hosts) mkdirSync(hostDir(run, h), { recursive: true });
}

describe('runPlaybook (fake connection: local /bin/sh per host)', () => {
  it('applies, then re-checks a converged role in exactly one command per host', async () => {
    const hosts = ['h1', 'h2', 'h3'];
    setupDirs('converge', hosts);
    const f = (n: string) => (h: string) => join(hostDir('converge', h), n);
    const role: Role = { name: 'r', tasks: [fileTask('a', f('a'), 'A'), fileTask('b', f('b'), 'B'), fileTask('c', f('c'), 'C')] };
    const first = harness(inventory(hosts), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const summary = await runPlaybook(first.options);
    expect(summary.exitCode).toBe(0);
    expect(summary.hosts.map((h) => h.changed)).toEqual([3, 3, 3]);
    expect(readFileSync(f('b')('h2'), 'utf8')).toBe('B');

    const second = harness(inventory(hosts), [{ name: 'p', hosts: 'all', roles: [role] }]);
    const again = await runPlaybook(second.options);
    expect(again.hosts.map((h) => [h.changed, h.ok, h.roundTrips])).toEqual([[0, 3, 1], [0, 3, 1], [0, 3, 1]]);
    expect([...second.connections.values()].map((c) => c.commands.map((x) => x.label))).toEqual([['facts:r'], ['facts:r'], ['facts:r']]);
  });

  it('re-gathers only the facts a change made stale', async () => {
    setupDirs('stale', ['h1']);
    const file = join(hostDir('stale', 'h1'), 'shared');
    const writer = fileTask('write', () => file, 'X');
    const reader: AnyTask = { ...fileTask('read', () => file, 'X'), name: 'read' };
    const other = fileTask('other', () => join(hostDir('stale', 'h1'), 'other'), '');
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [writer, reader, other] }] }]);
    await runPlaybook(h.options);
    const labels = h.connections.get('h1')!.commands.map((c) => c.label);
    // role batch, apply, verify re-gather (the same key: then fresh for `read`), nothing more
    expect(labels).toEqual(['facts:r', '', 'facts:r']);
    const reads = h.events.filter((e) => e.type === 'task-result').map((e) => (e as { task: string; status: string }).status);
    expect(reads).toEqual(['changed', 'ok', 'ok']);
  });

  it('runs handlers once, after the role, only when a task that notified them changed', async () => {
    setupDirs('handlers', ['h1']);
    const f = (n: string) => () => join(hostDir('handlers', 'h1'), n);
    const calls: string[] = [];
    const role: Role = {
      name: 'r',
      tasks: [fileTask('a', f('a'), '1', { notify: ['restart'] }), fileTask('b', f('b'), '2', { notify: ['restart', 'reload'] }), fileTask('c', f('c'), '')],
      handlers: [
        { name: 'restart', run: async () => void calls.push('restart') },
        { name: 'reload', run: async () => void calls.push('reload') },
        { name: 'never', run: async () => void calls.push('never') },
      ],
    };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]);
    await runPlaybook(h.options);
    expect(calls).toEqual(['restart', 'reload']);
    const order = h.events.filter((e) => e.type === 'task-result' || e.type === 'handler-result').map((e) => ('task' in e ? e.task : `handler:${(e as { handler: string }).handler}`));
    expect(order).toEqual(['a', 'b', 'c', 'handler:restart', 'handler:reload']);
    calls.length = 0;
    await runPlaybook(harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }]).options);
    expect(calls).toEqual([]);
  });

  it('check mode applies nothing, reports diffs, and exits 3', async () => {
    setupDirs('check', ['h1']);
    const file = join(hostDir('check', 'h1'), 'a');
    writeFileSync(file, 'old');
    const calls: string[] = [];
    const role: Role = { name: 'r', tasks: [fileTask('a', () => file, 'new', { notify: ['h'] })], handlers: [{ name: 'h', run: async () => void calls.push('h') }] };
    const h = harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [role] }], { check: true });
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(3);
    expect(summary.changesPending).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(calls).toEqual([]);
    const result = h.events.find((e) => e.type === 'task-result') as { diff?: string; status: string };
    expect(result).toMatchObject({ status: 'changed', diff: '-old\n+new' });
  });

  it('isolates a failing host: the others finish, it skips later plays, exit 4', async () => {
    setupDirs('fail', ['h1', 'h2', 'h3']);
    const f = (n: string) => (h: string) => join(hostDir('fail', h), n);
    const boom: AnyTask = { ...fileTask('boom', f('x'), 'x'), apply: async (_c, ctx) => { if (ctx.host.name === 'h2') throw new Error('disk full'); await Promise.resolve(); } , verify: false };
    const later: Role = { name: 'later', tasks: [fileTask('later', f('later'), 'L')] };
    const h = harness(inventory(['h1', 'h2', 'h3']), [
      { name: 'one', hosts: 'all', roles: [{ name: 'r', tasks: [boom] }] },
      { name: 'two', hosts: 'all', roles: [later] },
    ]);
    const summary = await runPlaybook(h.options);
    expect(summary.exitCode).toBe(4);
    expect(summary.hosts.find((x) => x.host === 'h2')).toMatchObject({ failed: 1, error: 'h2: r / boom: disk full' });
    expect(existsSync(f('later')('h1'))).toBe(true);
    expect(existsSync(f('later')('h2'))).toBe(false);
    expect(existsSync(f('later')('h3'))).toBe(true);
  });

  it('marks a host whose connection fails as unreachable, exit 5', async () => {
    setupDirs('unreach', ['h1', 'h2']);
    const h = harness(inventory(['h1', 'h2']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [fileTask('a', (x) => join(hostDir('unreach', x), 'a'), 'A')] }] }]);
    const connect = h.options.connect;
    const summary = await runPlaybook({
      ...h.options,
      connect: async (host, signal) => {
        if (host.name === 'h2') throw new UnreachableError('h2', 'connection refused');
        return connect(host, signal);
      },
    });
    expect(summary.exitCode).toBe(5);
    expect(summary.hosts.map((x) => [x.host, x.unreachable, x.changed])).toEqual([['h1', false, 1], ['h2', true, 0]]);
  });

  it('never works on more hosts at once than the concurrency allows', async () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
    let inFlight = 0;
    let peak = 0;
    const slow: AnyTask = {
      name: 'slow',
      facts: () => ({}),
      plan: () => ({ kind: 'run', summary: 'wait', payload: null }),
      apply: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 30));
        inFlight -= 1;
      },
      verify: false,
    };
    const h = harness(inventory(hosts), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [slow] }] }], { concurrency: 2 });
    await runPlaybook(h.options);
    expect(peak).toBe(2);
  });

  it('runs serial batches and stops when too many hosts failed', async () => {
    const hosts = ['h1', 'h2', 'h3', 'h4'];
    const seen: string[] = [];
    const task: AnyTask = {
      name: 't',
      facts: () => ({}),
      plan: () => ({ kind: 'run', summary: 'go', payload: null }),
      apply: async (_c, ctx) => {
        seen.push(ctx.host.name);
        if (ctx.host.name === 'h1') throw new Error('bad');
      },
      verify: false,
    };
    const h = harness(inventory(hosts), [{ name: 'p', hosts: 'all', serial: 2, maxFailPercentage: 20, roles: [{ name: 'r', tasks: [task] }] }]);
    const summary = await runPlaybook(h.options);
    expect(seen.sort()).toEqual(['h1', 'h2']);
    expect(summary.exitCode).toBe(4);
    expect(h.events.find((e) => e.type === 'play-end')).toMatchObject({ aborted: 'play "p": 1 of 4 hosts failed, more than the allowed 20%' });
  });

  it('fails a task whose apply does not converge', async () => {
    setupDirs('converge-fail', ['h1']);
    const file = join(hostDir('converge-fail', 'h1'), 'a');
    const liar: AnyTask = { ...fileTask('liar', () => file, 'A'), apply: async () => {} };
    const summary = await runPlaybook(harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [liar] }] }]).options);
    expect(summary.hosts[0]!.error).toBe('h1: r / liar: did not converge: after applying, the plan is still "set liar"');
  });

  it('honours --limit, rejects unknown limit terms, and selects by tags', async () => {
    setupDirs('limit', ['h1', 'h2']);
    const f = (n: string) => (h: string) => join(hostDir('limit', h), n);
    const role: Role = { name: 'r', tasks: [fileTask('a', f('a'), 'A', { tags: ['alpha'] }), fileTask('b', f('b'), 'B')] };
    const plays: Play[] = [{ name: 'p', hosts: 'all', roles: [role] }];
    const limited = await runPlaybook(harness(inventory(['h1', 'h2']), plays, { limit: ['h2'], tags: ['alpha'] }).options);
    expect(limited.hosts.map((x) => [x.host, x.changed])).toEqual([['h2', 1]]);
    expect(existsSync(f('a')('h2'))).toBe(true);
    expect(existsSync(f('b')('h2'))).toBe(false);
    await expect(runPlaybook(harness(inventory(['h1', 'h2']), plays, { limit: ['h9'] }).options)).rejects.toThrow(InputError);
    const skipped = await runPlaybook(harness(inventory(['h1', 'h2']), plays, { limit: ['h1'], skipTags: ['r'] }).options);
    expect(skipped.hosts[0]!.roundTrips).toBe(0);
  });

  it('stops starting work when interrupted, exit 130', async () => {
    const controller = new AbortController();
    controller.abort();
    const task: AnyTask = { name: 't', facts: () => ({}), plan: () => ({ kind: 'run', summary: 'x', payload: null }), apply: async () => {}, verify: false };
    const summary = await runPlaybook(harness(inventory(['h1']), [{ name: 'p', hosts: 'all', roles: [{ name: 'r', tasks: [task] }] }], { signal: controller.signal }).options);
    expect(summary.exitCode).toBe(130);
    expect(summary.hosts[0]!.changed).toBe(0);
  });
});
