// `kcluster status` from real journal files: test/fixtures/journal/ holds the files a real run
// of test/integration/run-journal.test.ts wrote on lab hosts (interrupted with SIGINT at its
// slow task, then completed by the rerun, then killed with SIGKILL at the same task).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const FIXTURES = 'test/fixtures/journal';
const IDS = { interrupted: '2026-11-26T23-03-36-996Z-a60b', completed: '2026-11-26T23-03-41-135Z-f699', killed: '2026-11-26T23-03-55-120Z-66f2' } as const;
const SLOW = 'slow write /var/tmp/kc-journal-b';

/** An inventory whose state folder holds the given fixtures under their run ids. */
function cluster(
  runs: readonly (keyof typeof IDS)[],
  edit?: (name: keyof typeof IDS, text: string) => string,
): { dir: string; inventory: string; journal: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kc-status-'));
  const journal = join(dir, 'state', 'journal');
  mkdirSync(journal, { recursive: true });
  for (const name of runs) {
    // The inventory the runs read is gone (as on any machine but the one that made them).
    const text = readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8').replaceAll('/tmp/kcluster-inv-', '/gone/kcluster-inv-');
    writeFileSync(join(journal, `${IDS[name]}.jsonl`), edit ? edit(name, text) : text);
  }
  const inventory = join(dir, 'inventory.yaml');
  writeFileSync(
    inventory,
    `cluster:\n  name: jr\nstateDir: ${join(dir, 'state')}\nssh: { agent: true }\nhosts:\n  - { name: kcejr1, address: 10.231.15.11, roles: [control-plane] }\n`,
  );
  return { dir, inventory, journal };
}

const status = (inventory: string, cwd: string, ...extra: string[]) => runCli(['status', '-i', inventory, ...extra], undefined, cwd);

interface Detail {
  id: string;
  result: string;
  finished: boolean;
  next?: string;
  inventoryChanged: boolean;
  hosts: { host: string; changed: { name: string }[]; failed: { name: string; error: string }[]; left: string[]; inFlight?: object }[];
}

describe('kcluster status', () => {
  it('without a journal: exit 2 naming the folder, the inventory and what writes one', async () => {
    const { dir, inventory, journal } = cluster([]);
    const r = await status(inventory, dir);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `kcluster: no run journal yet in ${journal} (the state folder of cluster jr, ${inventory}): runs that change hosts (apply, upgrade, reset, remove-node, certs renew, secrets rotate-key, etcd snapshot save and restore, run) write one; --check runs do not. Run one, or give the inventory those runs used\n`,
    );
  });

  it('lists the runs newest first, then the last one: killed, where each host was, and the command again from its folder', async () => {
    const { dir, inventory, journal } = cluster(['interrupted', 'completed', 'killed']);
    const r = await status(inventory, dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`Journal ${journal}: 3 run(s) kept, newest first`);
    expect(lines[1]).toMatch(/^ID +STARTED \(UTC\) +DURATION +RESULT +COMMAND$/);
    expect(lines.slice(2, 5).map((l) => l.split(/\s{2,}/)[0])).toEqual([IDS.killed, IDS.completed, IDS.interrupted]);
    expect(lines.slice(2, 5).map((l) => l.split(/\s{2,}/)[3])).toEqual(['did not finish', 'completed', 'interrupted']);
    expect(r.out).toContain(`Run ${IDS.killed} (kcluster run /tmp/`);
    expect(r.out).toContain(': did not finish: no end record (the process was killed, or the machine stopped); last record at 2026-11-26 23:03:55Z');
    expect(r.out).toContain(
      '  kcejr1: 1 changed\n    changed: prepare / prepare / file /var/tmp/kc-journal-a\n    in flight: play "slow", role slow\n    left: "slow", "finish"\n',
    );
    expect(r.out).toContain('  kcejr2: 1 changed\n    changed: prepare / prepare / file /var/tmp/kc-journal-a\n    left: "slow", "finish"\n');
    expect(r.out).toContain('Hosts that did not finish their plays: kcejr1, kcejr2, kcejr3.\n');
    expect(r.out).toContain('is not the one this run read (changed since, or gone');
    expect(r.out).toMatch(
      /Run next \(every task is idempotent: the same command converges what was left\):\n {2}cd \/work\/main && kcluster run \/tmp\/kc-journal-\w+\/journal-demo\.mjs -i \/gone\/kcluster-inv-\w+\/inventory\.yaml --output json\n$/,
    );
  });

  it('--run ID (or its start) shows that run: the interrupted one, what failed, the task in flight, what was left', async () => {
    const { dir, inventory } = cluster(['interrupted', 'completed', 'killed']);
    const r = await status(inventory, dir, '--run', IDS.interrupted.slice(0, 19));
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toContain('Journal ');
    expect(r.out).toMatch(
      new RegExp(
        `^Run ${IDS.interrupted} \\(kcluster run .*\\), started 2026-11-26 23:03:36Z, kcluster 0\\.1\\.0: interrupted \\(Ctrl-C or SIGTERM\\) after 3\\.\\d s; it did not finish\\.\n`,
      ),
    );
    expect(r.out).toContain(
      `  kcejr1: 1 changed, 1 failed\n    changed: prepare / prepare / file /var/tmp/kc-journal-a\n    FAILED: slow / slow / ${SLOW}: kcejr1: slow / ${SLOW}: command (write /var/tmp/kc-journal-b) was cancelled before it started`,
    );
    expect(r.out).toContain(`    in flight: play "slow", role slow, task "${SLOW}"\n    left: "slow", "finish"\n`);
    const completed = await status(inventory, dir, '--run', IDS.completed);
    expect(completed.out).toMatch(/: completed in \d+\.\d s\.\n {2}kcejr1: 3 changed, every play done\n/);
    expect(completed.out).toContain(`    changed: slow / slow / ${SLOW}\n`);
    expect(completed.out).not.toContain('Run next');
  });

  it('-o json: the runs and the last one in detail, with the command to run next', async () => {
    const { inventory, journal } = cluster(['interrupted', 'completed']);
    const r = await status(inventory, '/work/main', '-o', 'json', '--last', '1');
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as { journal: string; runs: { id: string; result: string }[]; last: Detail };
    expect(doc.journal).toBe(journal);
    expect(doc.runs.map((x) => [x.id, x.result])).toEqual([[IDS.completed, 'completed']]);
    expect(doc.last).toMatchObject({ id: IDS.completed, result: 'completed', finished: true, inventoryChanged: true });
    expect(doc.last.next).toBeUndefined();
    expect(doc.last.hosts.map((h) => h.left)).toEqual([[], [], []]);
    const one = JSON.parse((await status(inventory, '/work/main', '-o', 'json', '--run', IDS.interrupted)).out) as { run: Detail };
    expect(one.run.result).toBe('interrupted');
    expect(one.run.next).toMatch(/^kcluster run \/tmp\/\S+\/journal-demo\.mjs -i \S+ --output json$/);
    expect(one.run.hosts[0]).toMatchObject({
      host: 'kcejr1',
      failed: [{ name: SLOW }],
      left: ['slow', 'finish'],
      inFlight: { play: 'slow', role: 'slow', task: SLOW },
    });
  });

  it('reads the killed run with its last line torn (the kill came mid-write) as the same, without a warning', async () => {
    const { dir, inventory } = cluster(['killed'], (_, text) => `${text}{"type":"change","t":"2026-11-26T23:03:55.5`);
    const r = await status(inventory, dir, '-o', 'json');
    expect(r.err).toBe('');
    const doc = JSON.parse(r.out) as { last: Detail };
    expect(doc.last).toMatchObject({ id: IDS.killed, result: 'did not finish', finished: false });
    expect(doc.last.hosts[0]).toMatchObject({ host: 'kcejr1', left: ['slow', 'finish'], inFlight: { play: 'slow', role: 'slow' } });
  });

  it('a run with no end record whose process holds the state lock is running, not killed', async () => {
    const { dir, inventory } = cluster(['killed'], (_, text) => text.replace(/"pid":\d+/, `"pid":${process.pid}`));
    writeFileSync(join(dir, 'state', 'lock'), JSON.stringify({ pid: process.pid, host: hostname(), started: 'x', command: 'kcluster run' }));
    const doc = JSON.parse((await status(inventory, dir, '-o', 'json')).out) as { last: Detail };
    expect(doc.last).toMatchObject({ result: 'running', finished: false });
    expect(doc.last.hosts[0]).toMatchObject({ host: 'kcejr1', inFlight: { play: 'slow', role: 'slow' } });
    expect(doc.last.next).toBeUndefined();
    expect((await status(inventory, dir)).out).toContain(': still running (its process holds the state lock); last record at 2026-11-26 23:03:55Z.\n');
  });

  it('an unknown --run or a bad --last: exit 2 saying what to give', async () => {
    const { dir, inventory, journal } = cluster(['interrupted', 'completed']);
    const unknown = await status(inventory, dir, '--run', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe(`kcluster: --run nope: no such run in ${journal}; kcluster status -i FILE lists the runs kept (the last 2)\n`);
    const ambiguous = await status(inventory, dir, '--run', '2026-11-26T23-03');
    expect(ambiguous.err).toContain('--run 2026-11-26T23-03: 2 runs start with it');
    expect((await status(inventory, dir, '--last', '0')).err).toBe('kcluster: --last must be a whole number of 1 or more (got "0")\n');
  });
});
