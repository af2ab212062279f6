// Both places kcluster writes a run's events (the debug log and `-o json`), read the same;
// anything else is refused with the file, the line and what to give instead.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/orchestrator/engine/input-error.js';
import { splitRuns } from '../../../../src/orchestrator/report/timeline/build-timeline.js';
import { detectFormat, parseRunLog } from '../../../../src/orchestrator/report/timeline/read-events.js';
import { SAMPLE_EVENTS, sampleDebugLog, sampleNdjson } from './sample-run.js';

function refusal(text: string): string {
  try {
    parseRunLog(text, 'run.log');
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('reading a run log', () => {
  it('reads the NDJSON stream of -o json', () => {
    const parsed = parseRunLog(sampleNdjson(), 'run.ndjson');
    expect(parsed.format).toBe('ndjson');
    expect(parsed.events.map((e) => e.event)).toEqual(SAMPLE_EVENTS);
    expect(parsed.events[2]!.line).toBe(3);
    expect(parsed.warnings).toEqual([]);
  });

  it('reads the event lines of a debug log and passes over its command lines and their output', () => {
    const text = sampleDebugLog();
    expect(text).toContain("h1: run sh -c 'echo ok'");
    const parsed = parseRunLog(text, 'run.log');
    expect(parsed.format).toBe('debug-log');
    expect(parsed.events.map((e) => e.event)).toEqual(SAMPLE_EVENTS);
  });

  it("reads an `apply --plan` log as its run, past the labelled events of the plan's check before it", () => {
    const checked = SAMPLE_EVENTS.map((e) => `${new Date(e.time).toISOString()} event (plan check) ${JSON.stringify({ ...e, check: true })}\n`).join('');
    const parsed = parseRunLog(checked + sampleDebugLog(), 'run.log');
    expect(parsed.events.map((e) => e.event)).toEqual(SAMPLE_EVENTS);
    expect(parsed.warnings).toEqual([]);
    // A plan refused as stale: its check is all the log holds, and the timeline says so.
    const refused = parseRunLog(checked, 'run.log');
    expect(refused.events).toHaveLength(SAMPLE_EVENTS.length);
    expect(refused.warnings).toEqual([
      "run.log: only the events of the check before the run are here (the run itself did not start): the timeline is that check's",
    ]);
  });

  it('takes CRLF line ends and kcluster stderr lines mixed into -o json (2>&1)', () => {
    const text = `kcluster: loading inventory\r\n${sampleNdjson().replaceAll('\n', '\r\n')}kcluster: debug log: /x/y.log\r\n`;
    expect(parseRunLog(text, 'run.ndjson').events).toHaveLength(SAMPLE_EVENTS.length);
  });

  it('detects the format from the first line that is not blank', () => {
    expect(detectFormat('\n\n{"type":"run-start"}')).toEqual({ format: 'ndjson', line: 3 });
    expect(detectFormat('2026-11-26T10:00:00.000Z cp1: connect')).toEqual({ format: 'debug-log', line: 1 });
    expect(detectFormat('hosts:\n  - name: cp1')).toBeUndefined();
  });

  it('refuses a file that is not a kcluster log, with the file, the line and what to give', () => {
    expect(refusal('hosts:\n  - name: cp1\n')).toMatch(
      /^run\.log:1: not a kcluster log: the line "hosts:" is neither a debug log line .*; give the debug log of a run .*<stateDir>\/logs\/\*\.log.* or the output of `kcluster apply -o json > FILE`$/,
    );
    expect(refusal('')).toMatch(/^run\.log: the file is empty; give the debug log/);
    expect(refusal('{"type":"run-start","playbook":"a","hosts":[],"check":false,"time":1}\n[1,2]\n{"a":1}\n')).toMatch(
      /^run\.log:2: not a kcluster log: the line "\[1,2\]" is not a kcluster event: it is not a JSON object;/,
    );
    expect(refusal('{"a":1}\n')).toContain('run.log:1: not a kcluster log: the line "{\\"a\\":1}" is not a kcluster event: it has no "type" field');
    expect(refusal('{"type":"task-result","time":5,"play":"p","host":"h","role":"r","status":"ok","durationMs":1}\n{}\n')).toContain(
      'run.log:1: not a kcluster log: the line',
    );
    expect(refusal('{"type":"task-result","time":5,"play":"p","host":"h","role":"r","status":"ok","durationMs":1}\n{}\n')).toContain(
      'its task-result event has no "task"',
    );
    expect(refusal('{"type":"play-start","play":"p","hosts":[]}\n{}\n')).toContain('its play-start event has no numeric "time" field');
    expect(refusal('2026-11-26T10:00:00.000Z cp1: connect\n2026-11-26T10:00:00.001Z event {"type": oops}\n2026-11-26T10:00:00.002Z end\n')).toMatch(
      /^run\.log:2: not a kcluster log: the line "2026-.*" is not a kcluster event: it is not JSON;/,
    );
    expect(refusal('2026-11-26T10:00:00.000Z cp1: connect\n')).toMatch(/^run\.log: not a kcluster log: it holds no kcluster events;/);
    const headless = sampleNdjson().split('\n').slice(1).join('\n');
    expect(refusal(headless)).toMatch(/^run\.log: not a kcluster log: it holds \d+ events but no run-start \(is it the start of a log cut off\?\);/);
  });

  it('leaves out a last line cut short, with a warning', () => {
    const text = sampleNdjson() + '{"type":"task-st';
    const parsed = parseRunLog(text, 'run.ndjson');
    expect(parsed.events).toHaveLength(SAMPLE_EVENTS.length);
    expect(parsed.warnings).toEqual([`run.ndjson:${SAMPLE_EVENTS.length + 1}: the last line is cut short; it was left out`]);
  });

  it('skips event types it does not know (a newer kcluster) and splits a file of several runs', () => {
    const text = `${sampleNdjson()}{"type":"something-new","time":1}\n${sampleNdjson()}`;
    const parsed = parseRunLog(text, 'two.ndjson');
    expect(parsed.events).toHaveLength(SAMPLE_EVENTS.length * 2);
    const runs = splitRuns(parsed.events);
    expect(runs.map((r) => [r.length, r[0]!.line])).toEqual([
      [SAMPLE_EVENTS.length, 1],
      [SAMPLE_EVENTS.length, SAMPLE_EVENTS.length + 2],
    ]);
  });
});
