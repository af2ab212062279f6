// Plain lines (no TTY, or CI): one line per task result, each starting with the host name, and
// one every 20 s of a long wait (what it still awaits: a CI log never goes quiet for minutes);
// diffs indented below; failures with the debug log path; the recap at the end.
import type { Writable } from 'node:stream';
import type { RunEvent, TaskStatus } from '../engine/events.js';
import { painter, type Paint } from './paint.js';
import { recapTable } from './recap-table.js';
import { tickWriter } from './tick-writer.js';

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

const statusStyle: Record<TaskStatus, Parameters<Paint>[1]> = { ok: 'green', changed: 'yellow', skipped: 'cyan', failed: 'red' };

/** The line(s) an event prints, or undefined for events plain mode does not show. */
export function plainLine(event: RunEvent, debugLogPath: string, paint: Paint = painter(false)): string | undefined {
  switch (event.type) {
    case 'run-start':
      return paint(`kcluster: ${event.playbook} on ${event.hosts.length} host(s)${event.check ? ' (check mode: nothing will be changed)' : ''}`, 'bold');
    case 'play-start':
      return paint(`PLAY ${event.play} [${event.hosts.join(', ')}]`, 'bold');
    case 'task-progress':
      return `${event.host} | ${event.role} | ${event.task} | ${paint(event.message, 'dim')}`;
    case 'task-result': {
      const status = paint(event.check && event.status === 'changed' ? 'would change' : event.status, statusStyle[event.status]);
      const detail = event.error ?? event.summary ?? event.reason ?? '';
      const [first = '', ...rest] = detail.split('\n');
      const head = `${event.host} | ${event.role} | ${event.task} | ${status}${first ? ` | ${first}` : ''}${event.warning ? ` | ${paint(`WARNING: ${event.warning}`, 'yellow')}` : ''}`;
      const more = rest.length > 0 ? `\n${indent(rest.join('\n'))}` : '';
      const diff = event.diff ? `\n${indent(event.diff)}` : '';
      return `${head}${more}${diff}`;
    }
    case 'handler-result': {
      const status = event.status === 'failed' ? paint('failed', 'red') : paint(event.check ? 'would run' : 'ran', 'yellow');
      return `${event.host} | ${event.role} | handler ${event.handler} | ${status}${event.error ? ` | ${event.error}` : ''}`;
    }
    case 'undo-result':
      return `${event.host} | ${event.role} | undo ${event.undo} | ${event.status === 'failed' ? paint('failed', 'red') : paint('ran', 'yellow')} | ${event.error ?? event.summary ?? ''}`;
    case 'host-unreachable':
      return `${event.host} | ${paint('UNREACHABLE', 'red')} | ${event.error} (debug log: ${debugLogPath})`;
    case 'host-failed':
      return `${event.host} | ${paint('FAILED', 'red')} | ${event.error} (debug log: ${debugLogPath})`;
    case 'host-stopped':
      return `${event.host} | ${paint('STOPPED', 'yellow')} | ${event.reason}`;
    case 'play-end':
      return event.aborted ? paint(`PLAY ${event.play} aborted: ${event.aborted}`, 'red') : undefined;
    case 'run-end':
      return `\n${recapTable(event.summary, debugLogPath)}`;
    default:
      return undefined;
  }
}

export function plainReporter(out: Writable, debugLogPath: string, color: boolean): { emit(event: RunEvent): void; close(): Promise<void> } {
  const paint = painter(color);
  const lines = tickWriter(out);
  return {
    emit(event) {
      const line = plainLine(event, debugLogPath, paint);
      if (line !== undefined) lines.write(`${line}\n`);
    },
    close: async () => lines.flush(),
  };
}
