// The timeline and its critical path from a hand-written run whose answer is known.
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../../../src/orchestrator/report/timeline/build-timeline.js';
import { criticalPath, isCritical, slackOf } from '../../../../src/orchestrator/report/timeline/critical-path.js';
import { formatTimeline } from '../../../../src/orchestrator/report/timeline/format-timeline.js';
import type { RunEvent } from '../../../../src/orchestrator/engine/events.js';
import { SAMPLE_EVENTS, T0 } from './sample-run.js';

describe('timeline model', () => {
  it('nests plays, host lanes, roles and tasks, in ms from the run start', () => {
    const t = buildTimeline(SAMPLE_EVENTS);
    expect(t).toMatchObject({ playbook: 'site', hosts: ['h1', 'h2'], startedAt: T0, durationMs: 3680, exitCode: 0 });
    expect(t.plays.map((p) => [p.play, p.start, p.end])).toEqual([
      ['setup', 10, 2130],
      ['rolling', 2140, 3670],
    ]);
    const h1 = t.plays[0]!.hosts.find((h) => h.host === 'h1')!;
    expect(h1).toEqual({
      host: 'h1',
      start: 10,
      end: 2125,
      outcome: 'done',
      roles: [
        {
          role: 'base',
          start: 11,
          end: 2125,
          factsMs: 9,
          tasks: [
            { role: 'base', task: 'quick', start: 20, end: 120, status: 'ok' },
            { role: 'base', task: 'download', start: 120, end: 2120, status: 'changed' },
          ],
        },
      ],
    });
  });

  it('ends what a cut-off log leaves open at its last event, marked running', () => {
    const cut = SAMPLE_EVENTS.slice(
      0,
      SAMPLE_EVENTS.findIndex((e) => e.type === 'task-result' && e.task === 'download' && e.host === 'h2'),
    );
    const t = buildTimeline(cut);
    expect(t.exitCode).toBeUndefined();
    expect(t.durationMs).toBe(120);
    const h2 = t.plays[0]!.hosts.find((h) => h.host === 'h2')!;
    expect(h2.outcome).toBe('running');
    expect(h2.roles[0]!.tasks).toEqual([{ role: 'base', task: 'download', start: 25, end: 120, status: 'running' }]);
  });

  it('marks a failed host and takes a task-result without its task-start from its duration', () => {
    const events = SAMPLE_EVENTS.filter((e) => !(e.type === 'task-start' && e.host === 'h2' && e.play === 'setup')).flatMap((e): RunEvent[] =>
      e.type === 'host-end' && e.host === 'h2' && e.play === 'setup'
        ? [{ type: 'host-failed', play: 'setup', host: 'h2', error: 'boom', time: e.time }, e]
        : [e],
    );
    const h2 = buildTimeline(events).plays[0]!.hosts.find((h) => h.host === 'h2')!;
    expect(h2.outcome).toBe('failed');
    expect(h2.roles[0]!.tasks[0]).toMatchObject({ task: 'download', start: 25, end: 1025 });
  });
});

describe('critical path', () => {
  const timeline = buildTimeline(SAMPLE_EVENTS);
  const path = criticalPath(timeline);

  it('takes every play, the host that ended last in each, and the hosts a later one waited for', () => {
    expect(path.plays).toEqual([
      { index: 0, play: 'setup', start: 10, end: 2130, lanes: [{ host: 'h1', start: 10, end: 2125, lastBy: 1095 }] },
      {
        index: 1,
        play: 'rolling',
        start: 2140,
        end: 3670,
        lanes: [
          { host: 'h1', start: 2140, end: 3152, lastBy: 0 },
          { host: 'h2', start: 3153, end: 3662, lastBy: 0 },
        ],
      },
    ]);
    expect(path.outsidePlaysMs).toBe(3680 - 2120 - 1530);
  });

  it('gives the other hosts their slack', () => {
    const h2 = timeline.plays[0]!.hosts.find((h) => h.host === 'h2')!;
    expect(isCritical(path, 0, 'h2')).toBe(false);
    expect(slackOf(path, 0, h2)).toBe(1095);
  });

  it('a play without hosts is on the path with no lane', () => {
    const events = [
      ...SAMPLE_EVENTS.slice(0, -1),
      { type: 'play-start', play: 'empty', hosts: [], time: T0 + 3675 },
      { type: 'play-end', play: 'empty', time: T0 + 3676 },
      SAMPLE_EVENTS.at(-1)!,
    ] as RunEvent[];
    const p = criticalPath(buildTimeline(events));
    expect(p.plays.at(-1)).toEqual({ index: 2, play: 'empty', start: 3675, end: 3676, lanes: [] });
  });

  it('the text table stars the path and names the long tasks on it', () => {
    const text = formatTimeline(timeline, path, { minTaskMs: 500 });
    expect(text).toContain('site: 2 hosts, 3.7 s, exit 0; started 2023-11-14T22:13:20.000Z');
    expect(text).toMatch(/^\*\s+0\.0\s+2\.1 {4}h1\s+last to end, by 1\.1 s$/m);
    expect(text).toMatch(/^ \s+0\.0\s+1\.0 {4}h2\s+1\.1 s slack$/m);
    expect(text).toMatch(/^\*\s+0\.1\s+2\.0 {8}download\s+changed$/m);
    expect(text).not.toMatch(/ quick /);
    expect(text).toMatch(/^\*\s+2\.1\s+1\.0 {4}h1\s+h2 started when it ended$/m);
    expect(text).toContain('critical path: 3.7 s (plays 3.6 s, outside plays 0.0 s)');
    expect(text).toMatch(/^ {2}setup {7}2\.1 s {2}h1 \(last by 1\.1 s\): base \/ download 2\.0 s$/m);
    expect(text).toMatch(/^ {2}rolling {5}1\.5 s {2}h1 then h2: restart \/ restart service 1\.0 s, restart \/ restart service 0\.5 s$/m);
  });
});
