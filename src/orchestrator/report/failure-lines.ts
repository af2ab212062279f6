// What went wrong in a run, one line per failure, for stderr when stdout carries NDJSON: a CI
// job or a script that keeps only stderr (or pipes stdout into jq) still learns which host,
// which task and why, without parsing the stream or opening the debug log.
import type { RunEvent } from '../engine/events.js';

function onHost(host: string, error: string): string {
  const first = error.split('\n')[0] ?? '';
  return first.startsWith(`${host}: `) ? first : `${host}: ${first}`;
}

/** The line a failure event is summed up by (first line of its error, host first), or undefined. */
export function failureLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'task-result':
    case 'handler-result':
    case 'undo-result':
      return event.status === 'failed' ? onHost(event.host, event.error ?? `${event.role} failed`) : undefined;
    case 'host-unreachable':
    case 'host-failed':
      return onHost(event.host, event.error);
    case 'play-end':
      return event.aborted ? `play ${event.play} aborted: ${event.aborted.split('\n')[0] ?? ''}` : undefined;
    default:
      return undefined;
  }
}

/** Gathers a run's failure lines, each once (a failed task and its host's failure say the same). */
export function failureCollector(): { add(event: RunEvent): void; readonly lines: readonly string[] } {
  const lines: string[] = [];
  return {
    add(event) {
      const line = failureLine(event);
      if (line !== undefined && !lines.includes(line)) lines.push(line);
    },
    lines,
  };
}
