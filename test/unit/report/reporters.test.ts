// What people and machines read, for a scripted event sequence: plain lines prefixed by the
// host, NDJSON, the recap, the debug log, the tree view ending cleanly, and a long wait's progress.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/orchestrator/engine/events.js';
import { emptyRecap, type RunSummary } from '../../../src/orchestrator/engine/recap.js';
import { createReporter } from '../../../src/orchestrator/report/create-reporter.js';
import { recapTable } from '../../../src/orchestrator/report/recap-table.js';

const summary: RunSummary = {
  playbook: 'demo',
  hosts: [
    { ...emptyRecap('n1'), ok: 5, changed: 1, roundTrips: 3, durationMs: 1200 },
    { ...emptyRecap('n2'), failed: 1, roundTrips: 2, durationMs: 800, error: 'n2: demo / t: boom' },
    { ...emptyRecap('n3'), unreachable: true, error: 'n3: unreachable: connection refused' },
  ],
  exitCode: 4,
  durationMs: 1500,
  interrupted: false,
  check: false,
  changesPending: false,
};

const events: RunEvent[] = [
  { type: 'run-start', playbook: 'demo', hosts: ['n1', 'n2', 'n3'], check: false, time: 1 },
  { type: 'play-start', play: 'demo', hosts: ['n1', 'n2', 'n3'], time: 2 },
  { type: 'host-start', play: 'demo', host: 'n1', time: 3 },
  { type: 'task-start', play: 'demo', host: 'n1', role: 'demo', task: 'file /etc/motd', time: 3 },
  {
    type: 'task-result',
    play: 'demo',
    host: 'n1',
    role: 'demo',
    task: 'file /etc/motd',
    status: 'changed',
    summary: 'update /etc/motd (content)',
    diff: '-a\n+b',
    durationMs: 5,
    roundTrips: 2,
    check: false,
    time: 4,
  },
  {
    type: 'task-result',
    play: 'demo',
    host: 'n1',
    role: 'demo',
    task: 'sysctl',
    status: 'ok',
    reason: 'already 1',
    durationMs: 1,
    roundTrips: 2,
    check: false,
    time: 4,
  },
  { type: 'handler-result', play: 'demo', host: 'n1', role: 'demo', handler: 'reload', status: 'changed', check: false, time: 5 },
  { type: 'host-end', play: 'demo', host: 'n1', ok: 5, changed: 1, skipped: 0, failed: 0, unreachable: false, time: 5 },
  {
    type: 'task-result',
    play: 'demo',
    host: 'n2',
    role: 'demo',
    task: 't',
    status: 'failed',
    error: 'n2: demo / t: boom\nstderr line',
    durationMs: 5,
    roundTrips: 2,
    check: false,
    time: 6,
  },
  { type: 'host-failed', play: 'demo', host: 'n2', error: 'n2: demo / t: boom', time: 7 },
  { type: 'host-end', play: 'demo', host: 'n2', ok: 0, changed: 0, skipped: 0, failed: 1, unreachable: false, time: 7 },
  { type: 'host-unreachable', play: 'demo', host: 'n3', error: 'n3: unreachable: connection refused', time: 8 },
  { type: 'host-end', play: 'demo', host: 'n3', ok: 0, changed: 0, skipped: 0, failed: 0, unreachable: true, time: 8 },
  { type: 'play-end', play: 'demo', time: 9 },
  { type: 'run-end', summary, time: 10 },
];

async function collect(mode: 'plain' | 'json' | 'tree', color = false): Promise<{ out: string; err: string; log: string; logPath: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (c: Buffer) => (chunks.out += c.toString()));
  err.on('data', (c: Buffer) => (chunks.err += c.toString()));
  const logPath = join(mkdtempSync(join(tmpdir(), 'kc-report-')), 'logs', 'run.log');
  const reporter = await createReporter({ mode, out, err, color, debugLogPath: logPath });
  for (const e of events) reporter.emit(e);
  reporter.debug('n1: exec [facts:demo]');
  await reporter.close();
  return { ...chunks, log: readFileSync(logPath, 'utf8'), logPath };
}

describe('reporters (scripted events)', () => {
  it('plain: every host line starts with the host, diffs indented, failures name the debug log', async () => {
    const { out, err, logPath } = await collect('plain');
    const lines = out.split('\n');
    expect(lines).toContain('n1 | demo | file /etc/motd | changed | update /etc/motd (content)');
    expect(out).toContain('n1 | demo | file /etc/motd | changed | update /etc/motd (content)\n    -a\n    +b\n');
    expect(lines).toContain('n1 | demo | sysctl | ok | already 1');
    expect(lines).toContain('n1 | demo | handler reload | ran');
    expect(out).toContain('n2 | demo | t | failed | n2: demo / t: boom\n    stderr line\n');
    expect(lines).toContain(`n2 | FAILED | n2: demo / t: boom (debug log: ${logPath})`);
    expect(lines).toContain(`n3 | UNREACHABLE | n3: unreachable: connection refused (debug log: ${logPath})`);
    expect(out).not.toContain('\u001b[');
    expect(err).toBe('');
  });

  it('plain and tree: the recap table, the run line and, on failure, the debug log path', async () => {
    for (const mode of ['plain', 'tree'] as const) {
      const { out, logPath } = await collect(mode);
      expect(out).toContain('host  ok  changed  skipped  failed  unreachable  round-trips  time');
      expect(out).toContain('n1     5        1        0       0            -            3  1.2s');
      expect(out).toContain('n3     0        0        0       0          yes            0  0.0s');
      expect(out).toContain('3 hosts, 1 changed task; 1 failed, 1 unreachable in 1.5s');
      expect(out.trimEnd().endsWith(`debug log: ${logPath}`)).toBe(true);
    }
  });

  it('recap in check mode says what would change, and no log path when all went well', () => {
    const clean: RunSummary = { ...summary, hosts: [{ ...emptyRecap('n1'), changed: 2 }], check: true, exitCode: 3, changesPending: true };
    const text = recapTable(clean, '/tmp/x.log');
    expect(text).toContain('RECAP demo (check mode: nothing was changed)');
    expect(text).toContain('1 host, would change 2 tasks in 1.5s');
    expect(text).not.toContain('/tmp/x.log');
  });

  it('plain with color: statuses are coloured; without: never an escape code', async () => {
    const { out } = await collect('plain', true);
    expect(out).toContain('n1 | demo | file /etc/motd | \u001b[33mchanged\u001b[39m | update /etc/motd (content)');
    expect(out).toContain('n2 | \u001b[31mFAILED\u001b[39m |');
  });

  it('json: one event per line on stdout and nothing else; task results carry the numbers', async () => {
    const { out, err, logPath } = await collect('json');
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(events.length);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((e) => e['type'])).toEqual(events.map((e) => e.type));
    expect(parsed[4]).toEqual({
      type: 'task-result',
      play: 'demo',
      host: 'n1',
      role: 'demo',
      task: 'file /etc/motd',
      status: 'changed',
      summary: 'update /etc/motd (content)',
      diff: '-a\n+b',
      durationMs: 5,
      roundTrips: 2,
      check: false,
      time: 4,
    });
    // stderr: each failure once (the failed task and its host's failure are one line), then the log
    expect(err).toBe('kcluster: n2: demo / t: boom\n' + 'kcluster: n3: unreachable: connection refused\n' + `kcluster: debug log: ${logPath}\n`);
  });

  it('debug log: every event and every debug line, each with a timestamp', async () => {
    const { log } = await collect('json');
    const lines = log.trimEnd().split('\n');
    expect(lines).toHaveLength(events.length + 1);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /);
    expect(lines.filter((l) => l.includes(' event {"type":"task-result"'))).toHaveLength(3);
    expect(lines.at(-1)).toMatch(/ n1: exec \[facts:demo\]$/);
  });

  it('tree: draws each host of the play and lets close() return once the play ended', async () => {
    const { out } = await collect('tree');
    // Not a TTY here, so listr2 draws with its line renderer, on the stream it was given.
    expect(out).toContain('PLAY demo');
    expect(out).toContain('n1  ok=1 changed=1');
    expect(out).toContain('n2: demo / t: boom (debug log: ');
    expect(out).toContain('UNREACHABLE n3: unreachable: connection refused');
    expect(out.indexOf('RECAP demo')).toBeGreaterThan(out.indexOf('PLAY demo'));
  });
});

describe('a long wait says what it still awaits (scripted task-progress events)', () => {
  const waiting: RunEvent[] = [
    { type: 'run-start', playbook: 'demo', hosts: ['n1'], check: false, time: 1 },
    { type: 'play-start', play: 'demo', hosts: ['n1'], time: 2 },
    { type: 'host-start', play: 'demo', host: 'n1', time: 3 },
    { type: 'task-start', play: 'demo', host: 'n1', role: 'addons-running', task: 'CoreDNS running', time: 4 },
    {
      type: 'task-progress',
      play: 'demo',
      host: 'n1',
      role: 'addons-running',
      task: 'CoreDNS running',
      message: 'still waiting after 20 s (of 600 s): coredns 0/2 ready',
      time: 20_004,
    },
  ];

  async function shown(mode: 'plain' | 'json'): Promise<string> {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const logPath = join(mkdtempSync(join(tmpdir(), 'kc-report-')), 'logs', 'run.log');
    const reporter = await createReporter({ mode, out, err: new PassThrough(), color: false, debugLogPath: logPath });
    for (const e of waiting) reporter.emit(e);
    await reporter.close();
    expect(readFileSync(logPath, 'utf8')).toContain(' event {"type":"task-progress"');
    return text;
  }

  it('plain: a line starting with the host, naming the role and the task', async () => {
    expect((await shown('plain')).split('\n')).toContain('n1 | addons-running | CoreDNS running | still waiting after 20 s (of 600 s): coredns 0/2 ready');
  });

  it('tree: the line of the running task, with what it still awaits', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const reporter = await createReporter({
      mode: 'tree',
      out,
      err: new PassThrough(),
      color: false,
      debugLogPath: join(mkdtempSync(join(tmpdir(), 'kc-report-')), 'run.log'),
    });
    for (const e of waiting.slice(0, -1)) reporter.emit(e);
    // listr2 draws the host a moment later: the progress is shown on a drawn line, as in a run.
    for (let i = 0; i < 100 && !text.includes('addons-running › CoreDNS running'); i++) await new Promise((r) => setTimeout(r, 10));
    reporter.emit(waiting.at(-1)!);
    reporter.emit({ type: 'host-end', play: 'demo', host: 'n1', ok: 1, changed: 0, skipped: 0, failed: 0, unreachable: false, time: 20_005 });
    reporter.emit({ type: 'play-end', play: 'demo', time: 20_006 });
    await reporter.close();
    expect(text).toContain('addons-running › CoreDNS running: still waiting after 20 s (of 600 s): coredns 0/2 ready');
  });

  it('json: the event as it is, on its own line', async () => {
    const lines = (await shown('json')).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual(waiting.at(-1));
  });
});
