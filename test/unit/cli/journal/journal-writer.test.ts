// The journal writer: one JSON line per record, fsynced per batch so a SIGKILL keeps what was
// flushed; a torn last line is read past without a word; the oldest runs beyond the retention
// count are deleted; a journal that cannot be written warns once and the run goes on.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../../../src/cli/journal/journal-writer.js';
import { parseJournal, readJournalFolder } from '../../../../src/cli/journal/read-journal.js';
import { runJournal } from '../../../../src/cli/journal/run-journal.js';
import type { RunRecord } from '../../../../src/cli/journal/journal-records.js';

const run = (id: string): RunRecord => ({
  type: 'run',
  id,
  argv: ['apply', '-i', 'inventory.yaml'],
  cwd: '/',
  inventory: { file: '/inventory.yaml', sha256: 'ab' },
  version: '0.1.0',
  playbook: 'cluster',
  started: '2026-11-26T00:00:00.000Z',
  pid: 1,
  plays: [{ name: 'p', hosts: ['h1'] }],
});
const role = { type: 'role', t: '2026-11-26T00:00:01.000Z', play: 'p', host: 'h1', role: 'r' } as const;

describe('journal writer', () => {
  it('appends one record a line, 0600 in a 0700 folder, after the turn of the event loop or on flush', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kc-journal-')), 'journal');
    const writer = openJournal(dir, 'a', () => undefined);
    writer.append(run('a'));
    expect(readFileSync(writer.file, 'utf8')).toBe('');
    await new Promise((r) => setImmediate(r));
    expect(readFileSync(writer.file, 'utf8').split('\n')).toHaveLength(2);
    writer.append(role);
    writer.flush();
    writer.close();
    writer.append(role);
    expect(
      readFileSync(writer.file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string })
        .map((r) => r.type),
    ).toEqual(['run', 'role']);
    expect(statSync(writer.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps every flushed record of a process killed with SIGKILL, and reads a torn last line as absent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-journal-'));
    const writerModule = pathToFileURL(resolve('dist/src/cli/journal/journal-writer.js')).href;
    // A real process: three records flushed, a fourth buffered, then SIGKILL before the next turn.
    const script = `import { openJournal } from ${JSON.stringify(writerModule)};
const w = openJournal(${JSON.stringify(dir)}, 'k', () => {});
w.append(${JSON.stringify(run('k'))});
w.append(${JSON.stringify(role)});
w.append(${JSON.stringify({ ...role, role: 'r2' })});
w.flush();
w.append(${JSON.stringify({ ...role, role: 'never' })});
process.kill(process.pid, 'SIGKILL');`;
    expect(() => execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' })).toThrow();
    const file = join(dir, 'k.jsonl');
    const whole = readFileSync(file, 'utf8');
    expect(whole.trim().split('\n')).toHaveLength(3);
    const notes: string[] = [];
    const read = parseJournal(whole, file, (n) => notes.push(n))!;
    expect(read.records.map((r) => (r.type === 'role' ? r.role : r.type))).toEqual(['r', 'r2']);
    expect(read.torn).toBe(false);
    // A kill in the middle of a write: half a line at the end.
    appendFileSync(file, '{"type":"change","t":"2026-11-26T00:00:0');
    const torn = readJournalFolder(dir, (n) => notes.push(n));
    expect(torn).toHaveLength(1);
    expect(torn[0]!.torn).toBe(true);
    expect(torn[0]!.records).toHaveLength(2);
    expect(notes).toEqual([]);
  });

  it('names file:line of a line that is not a record in the middle, and skips a file that is not a journal', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-journal-'));
    writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify(run('a'))}\nnot json\n${JSON.stringify(role)}\n`);
    writeFileSync(join(dir, 'b.jsonl'), 'hello\n');
    const notes: string[] = [];
    const files = readJournalFolder(dir, (n) => notes.push(n));
    expect(files.map((f) => f.run.id)).toEqual(['a']);
    expect(files[0]!.records).toHaveLength(1);
    expect(notes).toEqual([
      `${join(dir, 'a.jsonl')}:2: not a journal record, skipped`,
      `${join(dir, 'b.jsonl')}:1: no run record at the start of this journal file, skipped (delete it if it is not kcluster's)`,
    ]);
  });

  it('keeps the newest runs up to the retention count, the one opening included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-journal-'));
    for (const id of ['2026-01', '2026-02', '2026-03', '2026-04']) writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(run(id))}\n`);
    writeFileSync(join(dir, 'notes.txt'), 'not a journal');
    openJournal(dir, '2026-05', () => undefined, 3).close();
    expect(readdirSync(dir).sort()).toEqual(['2026-03.jsonl', '2026-04.jsonl', '2026-05.jsonl', 'notes.txt']);
  });

  it('a state folder that cannot hold the journal warns once; the run goes on without it', () => {
    const root = mkdtempSync(join(tmpdir(), 'kc-journal-'));
    const inventory = join(root, 'inventory.yaml');
    writeFileSync(inventory, 'hosts: []\n');
    writeFileSync(join(root, 'journal'), 'a file where the folder goes');
    const warnings: string[] = [];
    const journal = runJournal({ stateDir: root, inventoryFile: inventory, argv: ['apply'], cwd: root, version: '0.1.0', warn: (l) => warnings.push(l) });
    journal.emit({ type: 'run-start', playbook: 'p', hosts: ['h1'], check: false, plays: [], time: 0 });
    journal.emit({ type: 'role-start', play: 'p', host: 'h1', role: 'r', time: 1 });
    journal.interrupted();
    expect(journal.file).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^kcluster: warning: cannot write the run journal in ${join(root, 'journal')}: .*; the run goes on without it \\(check the state folder's free space and permissions\\)$`,
      ),
    );
  });
});
