// The timeline of one run, as plain data: every time is in ms from the run's start (its
// run-start event). Built from the events alone, so it knows plays, hosts, roles and tasks
// and nothing of what they do.
import type { TaskStatus } from '../../engine/events.js';

export interface TaskSpan {
  readonly role: string;
  readonly task: string;
  readonly start: number;
  readonly end: number;
  /** `running`: the log ends before the task did. */
  readonly status: TaskStatus | 'running';
}

export interface RoleSpan {
  readonly role: string;
  readonly start: number;
  /** The next role's start on the host, or the host's end. */
  readonly end: number;
  /** Time spent gathering facts for the role (before its tasks and to verify them). */
  readonly factsMs: number;
  readonly tasks: readonly TaskSpan[];
}

export type HostOutcome = 'done' | 'failed' | 'unreachable' | 'stopped' | 'running';

/** One host's part of one play. */
export interface HostLane {
  readonly host: string;
  readonly start: number;
  readonly end: number;
  readonly outcome: HostOutcome;
  readonly roles: readonly RoleSpan[];
}

export interface PlaySpan {
  readonly play: string;
  /** Its place among the run's plays (a playbook may hold two plays of one name). */
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly hosts: readonly HostLane[];
  readonly aborted?: string;
}

export interface Timeline {
  readonly playbook: string;
  readonly hosts: readonly string[];
  readonly check: boolean;
  /** Epoch ms of the run-start event. */
  readonly startedAt: number;
  readonly durationMs: number;
  readonly plays: readonly PlaySpan[];
  /** Absent when the log ends before run-end (a crash, a log still being written). */
  readonly exitCode?: number;
}
