// One run's journal, fed the engine's events: opened at run-start (not for --check: a plan
// changes no host, and its runs would push real ones out of the retention count), a record for
// each role begun, each change and failure, each host's end of a play, Ctrl-C with the tasks in
// flight, and the end. A journal that cannot be written warns once; the run goes on.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { RunEvent } from '../../orchestrator/engine/events.js';
import type { RunSummary } from '../../orchestrator/engine/recap.js';
import { JOURNAL_FOLDER, type ChangeRecord, type EndStatus, type HostEndRecord, type InFlight } from './journal-records.js';
import { openJournal, type JournalWriter } from './journal-writer.js';
import { sha256SmallFile } from '../../orchestrator/util/sha256-file.js';

export interface RunJournalOptions {
  readonly stateDir: string;
  readonly inventoryFile: string;
  /** Already without secrets (journalArgv). */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly version: string;
  readonly warn: (line: string) => void;
  readonly keep?: number;
}

export interface RunJournal {
  emit(event: RunEvent): void;
  /** Ctrl-C or SIGTERM: records the tasks running now. */
  interrupted(): void;
  /** The run threw after it started (no run-end event): ends the journal as failed with why. */
  abandon(error: unknown): void;
  /** The file, once the run started. */
  readonly file: string | undefined;
}

/** Sorts by start time: 2026-11-26T22-55-06-123Z-3fa9. */
export function newRunId(now: Date): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(2).toString('hex')}`;
}

const MAX_ERROR = 2000;
const clip = (text: string): string => (text.length > MAX_ERROR ? `${text.slice(0, MAX_ERROR - 3)}...` : text);

/** A task, handler or undo that changed or failed, as its journal record (its error clipped). */
function changeRecord(
  t: string,
  event: { readonly play: string; readonly host: string; readonly role: string; readonly error?: string },
  kind: ChangeRecord['kind'],
  name: string,
  status: ChangeRecord['status'],
): ChangeRecord {
  return {
    type: 'change',
    t,
    play: event.play,
    host: event.host,
    role: event.role,
    kind,
    name,
    status,
    ...(event.error !== undefined ? { error: clip(event.error) } : {}),
  };
}

export function endStatus(summary: RunSummary): EndStatus {
  return summary.interrupted ? 'interrupted' : summary.exitCode === 0 ? 'completed' : 'failed';
}

export function runJournal(options: RunJournalOptions): RunJournal {
  let writer: JournalWriter | undefined;
  let started = 0;
  // A forced exit (a second Ctrl-C, the stop deadline: exit 130) ends the journal on the way out.
  const onExit = (code: number): void =>
    end({
      status: code === 130 ? 'interrupted' : 'failed',
      exitCode: code,
      time: Date.now(),
      error:
        code === 130
          ? 'stopped at once (a second Ctrl-C or SIGTERM, or still stopping after the grace period)'
          : `the process exited (code ${code}) before the run ended`,
    });
  const inFlight = new Map<string, InFlight>();
  const hostOutcome = new Map<string, Pick<HostEndRecord, 'outcome' | 'error'>>();
  const stamp = (event: RunEvent): string => new Date(event.time).toISOString();
  const warnOnce = (error: Error): void =>
    options.warn(
      `kcluster: warning: cannot write the run journal in ${join(options.stateDir, JOURNAL_FOLDER)}: ${error.message}; the run goes on without it (check the state folder's free space and permissions)`,
    );

  function open(event: Extract<RunEvent, { type: 'run-start' }>): void {
    if (event.check) return;
    const now = new Date(event.time);
    const id = newRunId(now);
    try {
      const sha256 = sha256SmallFile(options.inventoryFile);
      writer = openJournal(join(options.stateDir, JOURNAL_FOLDER), id, warnOnce, options.keep);
      started = event.time;
      writer.append({
        type: 'run',
        id,
        argv: options.argv,
        cwd: options.cwd,
        inventory: { file: options.inventoryFile, sha256 },
        version: options.version,
        playbook: event.playbook,
        started: now.toISOString(),
        pid: process.pid,
        plays: event.plays ?? [],
      });
      writer.flush();
      process.on('exit', onExit);
    } catch (error) {
      writer = undefined;
      warnOnce(error as Error);
    }
  }

  function end(record: { status: EndStatus; exitCode: number; time: number; error?: string }): void {
    if (!writer) return;
    process.removeListener('exit', onExit);
    writer.append({
      type: 'end',
      t: new Date(record.time).toISOString(),
      status: record.status,
      exitCode: record.exitCode,
      durationMs: record.time - started,
      ...(record.error !== undefined ? { error: clip(record.error) } : {}),
    });
    writer.close();
    writer = undefined;
  }

  return {
    get file() {
      return writer?.file;
    },
    emit(event) {
      if (event.type === 'run-start') return open(event);
      if (!writer) return;
      const t = stamp(event);
      switch (event.type) {
        case 'role-start':
          writer.append({ type: 'role', t, play: event.play, host: event.host, role: event.role });
          return;
        case 'task-start':
          inFlight.set(event.host, { host: event.host, play: event.play, role: event.role, task: event.task });
          return;
        case 'task-result':
          inFlight.delete(event.host);
          if (event.status === 'changed' || event.status === 'failed') writer.append(changeRecord(t, event, 'task', event.task, event.status));
          return;
        case 'handler-result':
          writer.append(changeRecord(t, event, 'handler', event.handler, event.status));
          return;
        case 'undo-result':
          writer.append(changeRecord(t, event, 'undo', event.undo, event.status));
          return;
        case 'host-failed':
          hostOutcome.set(event.host, { outcome: 'failed', error: clip(event.error) });
          return;
        case 'host-unreachable':
          hostOutcome.set(event.host, { outcome: 'unreachable', error: clip(event.error) });
          return;
        case 'host-stopped':
          hostOutcome.set(event.host, { outcome: 'stopped', error: clip(event.reason) });
          return;
        case 'host-end': {
          const outcome = hostOutcome.get(event.host) ?? { outcome: 'done' };
          hostOutcome.delete(event.host);
          inFlight.delete(event.host);
          writer.append({ type: 'host-end', t, play: event.play, host: event.host, ...outcome });
          return;
        }
        case 'run-end':
          end({ status: endStatus(event.summary), exitCode: event.summary.exitCode, time: event.time });
          return;
        default:
          return;
      }
    },
    interrupted() {
      if (!writer) return;
      writer.append({ type: 'interrupt', t: new Date().toISOString(), inFlight: [...inFlight.values()] });
      writer.flush();
    },
    abandon(error) {
      end({
        status: 'failed',
        exitCode: 1,
        time: Date.now(),
        error: `the run stopped on an internal error: ${error instanceof Error ? error.message : String(error)}`,
      });
    },
  };
}
