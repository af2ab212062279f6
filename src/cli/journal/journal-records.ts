// The run journal's format: one JSON object a line in <stateDir>/journal/<run id>.jsonl,
// appended as the run goes. Names and outcomes only: never file contents, diffs or summaries
// (a change's summary may quote a value), so a journal holds no secret.

/** The first line: what ran, from where, with which inventory and kcluster. */
export interface RunRecord {
  readonly type: 'run';
  readonly id: string;
  /** The command line as typed (secret-looking option values replaced, see command-line.ts). */
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly inventory: { readonly file: string; readonly sha256: string };
  readonly version: string;
  readonly playbook: string;
  readonly started: string;
  readonly pid: number;
  /** Each play with the hosts it is to run on (after --limit): what "left" is measured against. */
  readonly plays: readonly { readonly name: string; readonly hosts: readonly string[] }[];
}

/** A host began a role (the coarse "where it was" of a run killed without an end record). */
export interface RoleRecord {
  readonly type: 'role';
  readonly t: string;
  readonly play: string;
  readonly host: string;
  readonly role: string;
}

/** Something applied on a host: a task, a handler or a role's undo, changed or failed. */
export interface ChangeRecord {
  readonly type: 'change';
  readonly t: string;
  readonly play: string;
  readonly host: string;
  readonly role: string;
  readonly kind: 'task' | 'handler' | 'undo';
  readonly name: string;
  readonly status: 'changed' | 'failed';
  readonly error?: string;
}

/** A host's part of a play is over: done, failed, unreachable or stopped. */
export interface HostEndRecord {
  readonly type: 'host-end';
  readonly t: string;
  readonly play: string;
  readonly host: string;
  readonly outcome: 'done' | 'failed' | 'unreachable' | 'stopped';
  readonly error?: string;
}

export interface InFlight {
  readonly host: string;
  readonly play: string;
  readonly role: string;
  readonly task: string;
}

/** Ctrl-C or SIGTERM arrived: the tasks that were running at that moment. */
export interface InterruptRecord {
  readonly type: 'interrupt';
  readonly t: string;
  readonly inFlight: readonly InFlight[];
}

export type EndStatus = 'completed' | 'failed' | 'interrupted';

/** The last line of a run that ended (a killed run has none). */
export interface EndRecord {
  readonly type: 'end';
  readonly t: string;
  readonly status: EndStatus;
  readonly exitCode: number;
  readonly durationMs: number;
  /** Why the run stopped early besides the hosts' own failures (a fatal play, an internal error). */
  readonly error?: string;
}

export type JournalRecord = RunRecord | RoleRecord | ChangeRecord | HostEndRecord | InterruptRecord | EndRecord;

/** Where a cluster's journal lives. */
export const JOURNAL_FOLDER = 'journal';
/** Runs kept: opening the 51st deletes the oldest. */
export const JOURNAL_KEEP = 50;
