// What the engine tells reporters, as it happens. Every event carries a timestamp (ms).
import type { RunSummary } from './recap.js';

export type TaskStatus = 'ok' | 'changed' | 'skipped' | 'failed';

interface Stamped {
  readonly time: number;
}

export type RunEvent = Stamped &
  (
    | {
        readonly type: 'run-start';
        readonly playbook: string;
        readonly hosts: readonly string[];
        readonly check: boolean;
        readonly debugLog?: string;
        /** Each play with the hosts it is to run on (after --limit), in order; the engine always says it. */
        readonly plays?: readonly { readonly name: string; readonly hosts: readonly string[] }[];
      }
    | { readonly type: 'play-start'; readonly play: string; readonly hosts: readonly string[] }
    | { readonly type: 'host-start'; readonly play: string; readonly host: string }
    | { readonly type: 'role-start'; readonly play: string; readonly host: string; readonly role: string }
    | {
        readonly type: 'facts-gathered';
        readonly host: string;
        readonly role: string;
        readonly keys: readonly string[];
        readonly roundTrips: number;
        readonly durationMs: number;
      }
    | { readonly type: 'task-start'; readonly play: string; readonly host: string; readonly role: string; readonly task: string }
    /**
     * A running task says what it still waits for (ApplyContext.progress), every 20 s of a long
     * wait. `task` is the task's name, or `handler NAME` / `undo NAME` / a role's run before its
     * first change, whichever is running.
     */
    | { readonly type: 'task-progress'; readonly play: string; readonly host: string; readonly role: string; readonly task: string; readonly message: string }
    | {
        readonly type: 'task-result';
        readonly play: string;
        readonly host: string;
        readonly role: string;
        readonly task: string;
        readonly status: TaskStatus;
        readonly summary?: string;
        readonly reason?: string;
        /** Something the operator must act on that the task does not change (see NoChange.warning). */
        readonly warning?: string;
        readonly diff?: string;
        readonly error?: string;
        readonly durationMs: number;
        readonly roundTrips: number;
        readonly check: boolean;
      }
    /** A failed role's undo ran on the host (see Undo in types.ts). */
    | {
        readonly type: 'undo-result';
        readonly play: string;
        readonly host: string;
        readonly role: string;
        readonly undo: string;
        readonly status: 'changed' | 'failed';
        readonly summary?: string;
        readonly error?: string;
      }
    /** In check mode, status "changed" means "would run". */
    | {
        readonly type: 'handler-result';
        readonly play: string;
        readonly host: string;
        readonly role: string;
        readonly handler: string;
        readonly status: 'changed' | 'failed';
        readonly error?: string;
        readonly check: boolean;
      }
    | { readonly type: 'host-unreachable'; readonly play: string; readonly host: string; readonly error: string }
    | { readonly type: 'host-failed'; readonly play: string; readonly host: string; readonly error: string }
    /** Told to stop (Ctrl-C, anyErrorsFatal, maxFailPercentage) after the task it was on; not a failure. */
    | { readonly type: 'host-stopped'; readonly play: string; readonly host: string; readonly reason: string }
    /** The host's part of the play is over; counts are for the whole run so far. */
    | {
        readonly type: 'host-end';
        readonly play: string;
        readonly host: string;
        readonly ok: number;
        readonly changed: number;
        readonly skipped: number;
        readonly failed: number;
        readonly unreachable: boolean;
      }
    /** `aborted`: why the rest of the play, and of the run, was not run. */
    | { readonly type: 'play-end'; readonly play: string; readonly aborted?: string }
    | { readonly type: 'run-end'; readonly summary: RunSummary }
  );

/** Any event without its timestamp, as the engine builds it. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'time'> : never) : never;

export interface EventSink {
  emit(event: RunEvent): void;
}
