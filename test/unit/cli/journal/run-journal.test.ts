// What a run's events become in its journal: names and outcomes only (no summary, no diff),
// nothing for --check, the tasks in flight at Ctrl-C, the end with its status.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runJournal } from '../../../../src/cli/journal/run-journal.js';
import { commandLine, journalArgv } from '../../../../src/cli/journal/command-line.js';
import type { RunEvent } from '../../../../src/orchestrator/engine/events.js';
import type { RunSummary } from '../../../../src/orchestrator/engine/recap.js';

function setup(): { root: string; journal: ReturnType<typeof runJournal>; records: () => Record<string, unknown>[] } {
  const root = mkdtempSync(join(tmpdir(), 'kc-journal-'));
  const inventory = join(root, 'inventory.yaml');
  writeFileSync(inventory, 'hosts: []\n');
  const journal = runJournal({
    stateDir: root,
    inventoryFile: inventory,
    argv: ['apply', '-i', 'inventory.yaml'],
    cwd: root,
    version: '9.9.9',
    warn: (l) => {
      throw new Error(l);
    },
  });
  const records = (): Record<string, unknown>[] => {
    const dir = join(root, 'journal');
    return readdirSync(dir).flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
  };
  return { root, journal, records };
}

const summary = (over: Partial<RunSummary>): RunSummary => ({
  playbook: 'p',
  hosts: [],
  exitCode: 0,
  durationMs: 5,
  interrupted: false,
  check: false,
  changesPending: false,
  ...over,
});
const base = { play: 'p', host: 'h1', role: 'r' } as const;

describe('run journal', () => {
  it('records the run, each role begun, changes and failures by name, each host end, and the end; never a summary, diff or warning', () => {
    const { journal, records } = setup();
    const events: RunEvent[] = [
      { type: 'run-start', playbook: 'p', hosts: ['h1'], check: false, plays: [{ name: 'p', hosts: ['h1'] }], time: Date.parse('2026-11-26T10:00:00Z') },
      { type: 'role-start', ...base, time: 1 },
      { type: 'task-start', ...base, task: 'a', time: 2 },
      { type: 'task-result', ...base, task: 'a', status: 'ok', reason: 'in place', warning: 'mind this', durationMs: 1, roundTrips: 1, check: false, time: 3 },
      { type: 'task-start', ...base, task: 'key', time: 4 },
      {
        type: 'task-result',
        ...base,
        task: 'key',
        status: 'changed',
        summary: 'write token=s3cr3t',
        diff: '+password: s3cr3t',
        durationMs: 1,
        roundTrips: 1,
        check: false,
        time: 5,
      },
      { type: 'handler-result', ...base, handler: 'restart x', status: 'changed', check: false, time: 6 },
      { type: 'task-result', ...base, task: 'b', status: 'failed', error: 'h1: r / b: exit 1', durationMs: 1, roundTrips: 1, check: false, time: 7 },
      { type: 'undo-result', ...base, undo: 'remove b', status: 'changed', summary: 'removed', time: 8 },
      { type: 'host-failed', play: 'p', host: 'h1', error: 'h1: r / b: exit 1', time: 9 },
      { type: 'host-end', play: 'p', host: 'h1', ok: 1, changed: 1, skipped: 0, failed: 1, unreachable: false, time: 10 },
    ];
    for (const e of events) journal.emit(e);
    journal.emit({ type: 'run-end', summary: summary({ exitCode: 4 }), time: Date.parse('2026-11-26T10:00:02Z') });
    const written = records();
    expect(JSON.stringify(written)).not.toMatch(/s3cr3t|mind this|in place/);
    expect(written.map((r) => r['type'])).toEqual(['run', 'role', 'change', 'change', 'change', 'change', 'host-end', 'end']);
    expect(written[0]).toMatchObject({
      argv: ['apply', '-i', 'inventory.yaml'],
      version: '9.9.9',
      playbook: 'p',
      plays: [{ name: 'p', hosts: ['h1'] }],
      started: '2026-11-26T10:00:00.000Z',
      inventory: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(written[0]!['id']).toMatch(/^2026-11-26T10-00-00-000Z-[0-9a-f]{4}$/);
    expect(written.slice(2, 6).map((r) => [r['kind'], r['name'], r['status']])).toEqual([
      ['task', 'key', 'changed'],
      ['handler', 'restart x', 'changed'],
      ['task', 'b', 'failed'],
      ['undo', 'remove b', 'changed'],
    ]);
    expect(written[6]).toMatchObject({ outcome: 'failed', error: 'h1: r / b: exit 1' });
    expect(written[7]).toMatchObject({ status: 'failed', exitCode: 4, durationMs: 2000 });
  });

  it('writes nothing for a --check run', () => {
    const { root, journal } = setup();
    journal.emit({ type: 'run-start', playbook: 'p', hosts: ['h1'], check: true, time: 0 });
    journal.emit({ type: 'task-result', ...base, task: 'a', status: 'changed', durationMs: 1, roundTrips: 1, check: true, time: 1 });
    journal.emit({ type: 'run-end', summary: summary({ check: true, exitCode: 3 }), time: 2 });
    expect(readdirSync(root)).toEqual(['inventory.yaml']);
  });

  it('Ctrl-C records the tasks in flight at once; the end says interrupted', () => {
    const { journal, records } = setup();
    journal.emit({ type: 'run-start', playbook: 'p', hosts: ['h1', 'h2'], check: false, plays: [], time: 0 });
    journal.emit({ type: 'task-start', ...base, task: 'slow', time: 1 });
    journal.emit({ type: 'task-start', ...base, host: 'h2', task: 'done', time: 1 });
    journal.emit({ type: 'task-result', ...base, host: 'h2', task: 'done', status: 'ok', reason: '', durationMs: 1, roundTrips: 1, check: false, time: 2 });
    journal.interrupted();
    expect(records().at(-1)).toMatchObject({ type: 'interrupt', inFlight: [{ host: 'h1', play: 'p', role: 'r', task: 'slow' }] });
    journal.emit({ type: 'run-end', summary: summary({ interrupted: true, exitCode: 130 }), time: 3 });
    expect(records().at(-1)).toMatchObject({ type: 'end', status: 'interrupted', exitCode: 130 });
  });

  it('a forced exit (second Ctrl-C: exit 130) still ends the journal as interrupted, in a real process', () => {
    const { root, records } = setup();
    const module = pathToFileURL(resolve('dist/src/cli/journal/run-journal.js')).href;
    const script = `import { runJournal } from ${JSON.stringify(module)};
const j = runJournal({ stateDir: ${JSON.stringify(root)}, inventoryFile: ${JSON.stringify(join(root, 'inventory.yaml'))}, argv: ['apply'], cwd: '/', version: '0', warn: () => {} });
j.emit({ type: 'run-start', playbook: 'p', hosts: ['h1'], check: false, plays: [], time: Date.now() });
j.emit({ type: 'role-start', play: 'p', host: 'h1', role: 'r', time: Date.now() });
process.exit(130);`;
    expect(() => execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' })).toThrow();
    expect(records().map((r) => r['type'])).toEqual(['run', 'role', 'end']);
    expect(records().at(-1)).toMatchObject({ status: 'interrupted', exitCode: 130, error: expect.stringContaining('stopped at once') });
  });

  it('a run that throws after it started ends as failed with the error', () => {
    const { journal, records } = setup();
    journal.emit({ type: 'run-start', playbook: 'p', hosts: [], check: false, time: 0 });
    journal.abandon(new Error('boom'));
    expect(records().at(-1)).toMatchObject({ type: 'end', status: 'failed', exitCode: 1, error: 'the run stopped on an internal error: boom' });
  });
});

describe('journal command line', () => {
  it('replaces the values of secret-looking options, and quotes for a shell', () => {
    expect(journalArgv(['apply', '-i', 'inv.yaml', '--sudo-password', 'hunter2', '--token=abc', '--limit', 'w1'])).toEqual([
      'apply',
      '-i',
      'inv.yaml',
      '--sudo-password',
      '<redacted>',
      '--token=<redacted>',
      '--limit',
      'w1',
    ]);
    expect(commandLine(['apply', '-i', 'my inventory.yaml', '--limit', 'w*,!w2'])).toBe("kcluster apply -i 'my inventory.yaml' --limit 'w*,!w2'");
  });
});
