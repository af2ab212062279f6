// Reads the events of a run from either of the two places kcluster writes them: the debug
// log (`<ISO time> event {json}` lines among the command lines) or the NDJSON stream of
// `-o json` (one event per line). Which one is decided by the first line. A debug log may also
// hold the events of a run nested in the logged one, labelled (`event (plan check) {json}`: the
// check `apply --plan` makes before it changes anything): the timeline is the logged run's,
// or the nested run's when it is the only one there (the plan was refused).
import type { RunEvent } from '../../engine/events.js';
import { InputError } from '../../engine/input-error.js';

export type LogFormat = 'debug-log' | 'ndjson';

export interface LoggedEvent {
  readonly event: RunEvent;
  /** 1-based line in the file, for messages. */
  readonly line: number;
}

export interface ParsedLog {
  readonly format: LogFormat;
  readonly events: readonly LoggedEvent[];
  readonly warnings: readonly string[];
}

const STAMPED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z (.*)$/;
/** `(plan check) `: the label of a nested run's events in a debug log (src/cli/plan/planned-run.ts). */
const NESTED_LABEL = /^\([a-z -]+\) /;

/** The fields each event type needs here, beyond type and time; other types are skipped. */
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  'run-start': ['playbook', 'hosts'],
  'play-start': ['play', 'hosts'],
  'host-start': ['play', 'host'],
  'role-start': ['play', 'host', 'role'],
  'facts-gathered': ['host', 'role', 'durationMs'],
  'task-start': ['play', 'host', 'role', 'task'],
  'task-result': ['play', 'host', 'role', 'task', 'status', 'durationMs'],
  'handler-result': ['play', 'host', 'role', 'handler'],
  'host-unreachable': ['play', 'host'],
  'host-failed': ['play', 'host'],
  'host-stopped': ['play', 'host'],
  'host-end': ['play', 'host'],
  'play-end': ['play'],
  'run-end': ['summary'],
};

export const WHAT_TO_GIVE =
  'give the debug log of a run (kcluster prints its path when a run fails; they are in the state folder, <stateDir>/logs/*.log) ' +
  'or the output of `kcluster apply -o json > FILE`';

function notALog(source: string, line: number, why: string): InputError {
  return new InputError(`${source}:${line}: not a kcluster log: ${why}; ${WHAT_TO_GIVE}`);
}

function shorten(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);
}

/** The event on a line, or a reason it is not one. */
function eventFrom(json: string): RunEvent | string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return 'it is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const record = value as Record<string, unknown>;
  if (typeof record['type'] !== 'string') return 'it has no "type" field';
  if (typeof record['time'] !== 'number' || !Number.isFinite(record['time'])) return `its ${record['type']} event has no numeric "time" field`;
  const required = REQUIRED[record['type']];
  if (!required) return undefined;
  const missing = required.filter((field) => record[field] === undefined);
  if (missing.length > 0) return `its ${record['type']} event has no ${missing.map((f) => `"${f}"`).join(', ')}`;
  return record as unknown as RunEvent;
}

export function detectFormat(text: string): { format: LogFormat; line: number } | undefined {
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/^\uFEFF/, '').trim();
    // kcluster's own stderr lines, when `-o json 2>&1` mixed them in.
    if (line === '' || line.startsWith('kcluster: ')) continue;
    if (line.startsWith('{')) return { format: 'ndjson', line: i + 1 };
    if (STAMPED.test(line)) return { format: 'debug-log', line: i + 1 };
    return undefined;
  }
  return undefined;
}

/** Pure: the events in a file's text; `source` names the file in messages. Throws InputError. */
export function parseRunLog(text: string, source: string): ParsedLog {
  const detected = detectFormat(text);
  const lines = text.split('\n');
  if (!detected) {
    const first = lines.findIndex((l) => l.trim() !== '');
    if (first === -1) throw new InputError(`${source}: the file is empty; ${WHAT_TO_GIVE}`);
    throw notALog(source, first + 1, `the line ${shorten(lines[first]!.trim())} is neither a debug log line ("<ISO time> event {...}") nor a JSON event`);
  }
  const events: LoggedEvent[] = [];
  const nested: LoggedEvent[] = [];
  const warnings: string[] = [];
  const last = lines.reduce((at, l, i) => (l.trim() === '' ? at : i), -1);
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/^\uFEFF/, '').replace(/\r$/, '');
    if (line.trim() === '') continue;
    let json: string;
    let into = events;
    if (detected.format === 'ndjson') {
      // `-o json 2>&1` mixes in kcluster's own stderr lines: not events, not an error.
      if (line.startsWith('kcluster: ')) continue;
      json = line;
    } else {
      const stamped = STAMPED.exec(line);
      // Lines without a time continue a multi-line entry (a command's output); commands are not events.
      if (!stamped || !stamped[1]!.startsWith('event ')) continue;
      json = stamped[1]!.slice('event '.length);
      const label = NESTED_LABEL.exec(json);
      if (label) {
        json = json.slice(label[0].length);
        into = nested;
      }
    }
    const event = eventFrom(json);
    if (event === undefined) continue;
    if (typeof event === 'string') {
      // The last line of a log cut short (the run killed as it wrote) costs only that line.
      if (i === last && event === 'it is not JSON') {
        warnings.push(`${source}:${i + 1}: the last line is cut short; it was left out`);
        continue;
      }
      throw notALog(source, i + 1, `the line ${shorten(line)} is not a kcluster event: ${event}`);
    }
    into.push({ event, line: i + 1 });
  }
  const hasRun = (list: readonly LoggedEvent[]): boolean => list.some((e) => e.event.type === 'run-start');
  if (!hasRun(events) && hasRun(nested)) {
    warnings.push(`${source}: only the events of the check before the run are here (the run itself did not start): the timeline is that check's`);
    events.push(...nested);
  }
  if (!events.some((e) => e.event.type === 'run-start')) {
    const what = events.length === 0 ? 'it holds no kcluster events' : `it holds ${events.length} events but no run-start (is it the start of a log cut off?)`;
    throw new InputError(`${source}: not a kcluster log: ${what}; ${WHAT_TO_GIVE}`);
  }
  return { format: detected.format, events, warnings };
}
