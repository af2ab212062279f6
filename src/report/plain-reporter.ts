// Plain lines (no TTY, or CI): one line per task result, each starting with the host name.
import type { Writable } from 'node:stream';
import type { RunEvent } from '../engine/events.js';
import { recapTable } from './recap-table.js';

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

export function plainLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'run-start':
      return `kcluster: ${event.playbook} on ${event.hosts.length} host(s)${event.check ? ' (check mode)' : ''}`;
    case 'play-start':
      return `PLAY ${event.play} [${event.hosts.join(', ')}]`;
    case 'task-result': {
      const status = event.check && event.status === 'changed' ? 'would change' : event.status;
      const detail = event.error ?? event.summary ?? event.reason ?? '';
      const head = `${event.host} | ${event.role} | ${event.task} | ${status}${detail ? ` | ${detail.split('\n')[0]}` : ''}`;
      const extra = event.error && event.error.includes('\n') ? `\n${indent(event.error.split('\n').slice(1).join('\n'))}` : '';
      return event.diff ? `${head}${extra}\n${indent(event.diff)}` : `${head}${extra}`;
    }
    case 'handler-result':
      return `${event.host} | ${event.role} | handler ${event.handler} | ${event.check ? 'would run' : event.status}${event.error ? ` | ${event.error}` : ''}`;
    case 'host-unreachable':
      return `${event.host} | UNREACHABLE | ${event.error}`;
    case 'host-failed':
      return `${event.host} | FAILED | ${event.error}`;
    case 'play-end':
      return event.aborted ? `PLAY ${event.play} aborted: ${event.aborted}` : undefined;
    default:
      return undefined;
  }
}

export function writePlain(out: Writable, event: RunEvent): void {
  if (event.type === 'run-end') {
    out.write(`\n${recapTable(event.summary)}\n`);
    return;
  }
  const line = plainLine(event);
  if (line !== undefined) out.write(`${line}\n`);
}
