// What people and machines read: plain lines prefixed by host, NDJSON, the recap, the debug log.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/engine/events.js';
import { createReporter } from '../../../src/report/create-reporter.js';
import { emptyRecap, type RunSummary } from '../../../src/engine/recap.js';

const summary: RunSummary = {
  playbook: 'demo',
  hosts: [
    { ...emptyRecap('n1'), ok: 5, changed: 1, roundTrips: 3, durationMs: 1200 },
    { ...emptyRecap('n2'), failed: 1, roundTrips: 2, durationMs: 800, error: 'n2: demo / t: boom' },
  ],
  exitCode: 4,
  durationMs: 1500,
  interrupted: false,
  check: false,
  changesPending: false,
};

const events: RunEvent[] = [
  { type: 'run-start', playbook: 'demo', hosts: ['n1', 'n2'], check: false, time: 1 },
  { type: 'play-start', play: 'demo', hosts: ['n1', 'n2'], time: 2 },
  { type: 'task-result', play: 'demo', host: 'n1', role: 'demo', task: 'file /etc/motd', status: 'changed', summary: 'update /etc/motd (content)', diff: '-a\n+b', durationMs: 5, roundTrips: 2, check: false, time: 3 },
  { type: 'task-result', play: 'demo', host: 'n2', role: 'demo', task: 't', status: 'failed', error: 'n2: demo / t: boom', durationMs: 5, roundTrips: 2, check: false, time: 4 },
  { type: 'host-failed', play: 'demo', host: 'n2', error: 'n2: demo / t: boom', time: 5 },
  { type: 'run-end', summary, time: 6 },
];

function collect(mode: 'plain' | 'json'): { out: string; err: string; log: string } {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (c: Buffer) => (chunks.out += c.toString()));
  err.on('data', (c: Buffer) => (chunks.err += c.toString()));
  const logPath = join(mkdtempSync(join(tmpdir(), 'kc-report-')), 'run.log');
  const reporter = createReporter({ mode, out, err, color: false, debugLogPath: logPath });
  for (const e of events) reporter.emit(e);
  reporter.debug('n1: exec [facts:demo]');
  void reporter.close();
  return { ...chunks, log: readFileSync(logPath, 'utf8') };
}

describe('reporters', () => {
  it('plain: every host line starts with the host, diffs indented, then the recap and the log path', () => {
    const { out, err, log } = collect('plain');
    expect(out).toContain('n1 | demo | file /etc/motd | changed | update /etc/motd (content)\n    -a\n    +b\n');
    expect(out).toContain('n2 | FAILED | n2: demo / t: boom');
    expect(out).toContain('host  ok  changed  skipped  failed  unreachable  round-trips  time');
    expect(out).toContain('n1     5        1        0       0            0            3  1.2s');
    expect(out).toContain('2 host(s), 1 task(s) changed; 1 failed, 1.5s');
    expect(err).toMatch(/full debug log: .*run\.log/);
    expect(log).toContain('n1: exec [facts:demo]');
    expect(log).toContain('"type":"task-result"');
  });

  it('json: one event per line on stdout and nothing else', () => {
    const { out } = collect('json');
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(events.length);
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(events.map((e) => e.type));
  });
});
