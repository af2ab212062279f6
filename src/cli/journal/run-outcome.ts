// What a journal file says about its run, per host: what it changed, what failed, which of its
// plays it finished, and where it was when the run stopped. Pure: records in, a model out.
import { commandLine } from './command-line.js';
import type { ChangeRecord, EndStatus, HostEndRecord, RunRecord } from './journal-records.js';
import type { JournalFile } from './read-journal.js';

/** A run with no end record: still running (its process holds the lock), or killed. */
export type RunResult = EndStatus | 'did not finish' | 'running';

export type PlayState = HostEndRecord['outcome'] | 'in flight' | 'not started';

export interface Applied {
  readonly play: string;
  readonly role: string;
  readonly kind: ChangeRecord['kind'];
  readonly name: string;
  readonly error?: string;
}

export interface HostOutcome {
  readonly host: string;
  readonly changed: readonly Applied[];
  readonly failed: readonly Applied[];
  readonly plays: readonly { readonly play: string; readonly state: PlayState; readonly error?: string }[];
  /** Its plays not done: stopped, failed, in flight or not started. */
  readonly left: readonly string[];
  /** Where it was when the run stopped: the task (Ctrl-C) or the role (a killed run). */
  readonly inFlight?: { readonly play: string; readonly role: string; readonly task?: string };
}

/** What the run record said (its first line), then what its other records add. */
export interface RunOutcome extends Pick<RunRecord, 'id' | 'argv' | 'cwd' | 'inventory' | 'version' | 'playbook' | 'started'> {
  readonly file: string;
  readonly command: string;
  /** The end record's time, or for a run that did not finish its last record's. */
  readonly ended: string;
  readonly durationMs: number;
  readonly result: RunResult;
  readonly finished: boolean;
  readonly exitCode?: number;
  readonly error?: string;
  readonly interruptedAt?: string;
  readonly hosts: readonly HostOutcome[];
}

/** `unended`: the run has no end record (killed, or still running): a play begun is where the host is. */
function hostOutcome(journal: JournalFile, host: string, unended: boolean): HostOutcome {
  const mine = journal.records.filter((r) => 'host' in r && r.host === host);
  const applied = (status: 'changed' | 'failed'): Applied[] =>
    mine.flatMap((r) =>
      r.type === 'change' && r.status === status
        ? [{ play: r.play, role: r.role, kind: r.kind, name: r.name, ...(r.error !== undefined ? { error: r.error } : {}) }]
        : [],
    );
  const plays = journal.run.plays
    .filter((p) => p.hosts.includes(host))
    .map(({ name }) => {
      const end = mine.findLast((r): r is HostEndRecord => r.type === 'host-end' && r.play === name);
      if (end) return { play: name, state: end.outcome as PlayState, ...(end.error !== undefined ? { error: end.error } : {}) };
      return { play: name, state: (mine.some((r) => r.type === 'role' && r.play === name) ? 'in flight' : 'not started') as PlayState };
    });
  const interrupt = journal.records.find((r) => r.type === 'interrupt');
  const task = interrupt?.type === 'interrupt' ? interrupt.inFlight.find((f) => f.host === host) : undefined;
  const open = plays.find((p) => p.state === 'in flight');
  const role = open && unended ? mine.findLast((r) => r.type === 'role' && r.play === open.play) : undefined;
  const inFlight = task ? { play: task.play, role: task.role, task: task.task } : role?.type === 'role' ? { play: role.play, role: role.role } : undefined;
  return {
    host,
    changed: applied('changed'),
    failed: applied('failed'),
    plays,
    left: plays.filter((p) => p.state !== 'done').map((p) => p.play),
    ...(inFlight ? { inFlight } : {}),
  };
}

/** `running(pid)`: whether the run's process still holds the state lock. */
export function runOutcome(journal: JournalFile, running: (pid: number) => boolean): RunOutcome {
  const { run, records } = journal;
  const end = records.findLast((r) => r.type === 'end');
  const interrupt = records.find((r) => r.type === 'interrupt');
  const lastTime = [...records].reverse().find((r) => 't' in r);
  const ended = end?.type === 'end' ? end.t : lastTime && 't' in lastTime ? lastTime.t : run.started;
  const result: RunResult = end?.type === 'end' ? end.status : running(run.pid) ? 'running' : 'did not finish';
  const hosts = [...new Set(run.plays.flatMap((p) => p.hosts))];
  return {
    id: run.id,
    file: journal.file,
    command: commandLine(run.argv),
    argv: run.argv,
    cwd: run.cwd,
    inventory: run.inventory,
    version: run.version,
    playbook: run.playbook,
    started: run.started,
    ended,
    durationMs: end?.type === 'end' ? end.durationMs : Date.parse(ended) - Date.parse(run.started),
    result,
    finished: end !== undefined,
    ...(end?.type === 'end' ? { exitCode: end.exitCode, ...(end.error !== undefined ? { error: end.error } : {}) } : {}),
    ...(interrupt?.type === 'interrupt' ? { interruptedAt: interrupt.t } : {}),
    hosts: hosts.map((h) => hostOutcome(journal, h, end === undefined)),
  };
}
