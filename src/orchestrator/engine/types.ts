// The shapes a playbook is made of. The engine knows nothing about Kubernetes: roles bring
// that knowledge as tasks that check (facts), plan (pure), apply (side effects) and verify.
import type { Connection } from '../ssh/connection.js';
import type { HostSettings, Inventory, Vars } from '../inventory/model.js';
import type { Change, PendingChange } from './change.js';
import type { Fact, FactMap, FactValues } from './fact.js';
import type { Semaphore } from './semaphore.js';

/** What a task may read about the host it plans for. Pure data, no I/O. */
export interface HostContext {
  readonly host: HostSettings;
  readonly inventory: Inventory;
  /** host.vars merged over the role's defaults. */
  readonly vars: Vars;
  /**
   * Run-scoped values published by earlier tasks (e.g. a join token generated once): one map
   * for the whole run and every host. Within a play hosts run in parallel, so read in a later
   * play what another host publishes; publishing in an earlier role of the same host is safe.
   */
  readonly shared: ReadonlyMap<string, unknown>;
  /**
   * The value of a fact another host of the run gathered earlier (Ansible's hostvars), or
   * undefined when it has not: hosts of one play run in parallel, so read in a later play what
   * the others gathered in an earlier one. Reading it keeps a plan pure.
   */
  factOf<T>(host: string, fact: Fact<T>): T | undefined;
}

/** What apply gets besides the change: the one door to the host, and a way to log. */
export interface ApplyContext extends HostContext {
  readonly connection: Connection;
  readonly signal: AbortSignal;
  /**
   * One bound on large transfers (binaries, image archives) for the whole run and every host
   * (RunOptions.transferConcurrency): wrap such an upload in `transfers.run(() => ...)`.
   */
  readonly transfers: Semaphore;
  log(message: string): void;
  /**
   * Tell the operator what the running task still waits for (a `task-progress` event: a line
   * in every output, an event in -o json, and the debug log). pollUntil's `progress` calls it
   * every 20 s, so that a wait of minutes is never silent.
   */
  progress(message: string): void;
  /** Publish a value for later tasks of this run (visible in HostContext.shared). */
  publish(key: string, value: unknown): void;
}

export interface Task<M extends FactMap = FactMap, P = unknown> {
  readonly name: string;
  readonly tags?: readonly string[];
  /** Facts this task reads; gathered in one batch with the rest of the role's. */
  facts(ctx: HostContext): M;
  /** Pure: facts and desired state in, a Change out. No I/O, no clock, no randomness. */
  plan(facts: FactValues<M>, ctx: HostContext): Change<P>;
  /** The only code with side effects; never called in check mode. */
  apply(change: PendingChange<P>, ctx: ApplyContext): Promise<void>;
  /**
   * After apply, the engine re-gathers this task's facts and re-plans: the plan must be "none"
   * or the task fails as not converged. Set false for tasks whose plan cannot reach "none"
   * right after apply (e.g. a command that starts something asynchronous), or give a
   * function that verifies in its own way (it throws when the host is not right).
   */
  readonly verify?: boolean | ((ctx: ApplyContext) => Promise<void>);
  /** Handler names to run (once, at the end of the role) if this task changed something. */
  readonly notify?: readonly string[];
  /**
   * Fact keys (exact, or prefixes ending in "*") that apply makes stale besides this task's
   * own facts, e.g. "systemd:*" after a daemon-reload.
   */
  readonly invalidates?: readonly string[];
}

/** Any task, whatever its facts and payload: roles hold heterogeneous lists. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTask = Task<any, any>;

export interface Handler {
  readonly name: string;
  run(ctx: ApplyContext): Promise<void>;
  /**
   * Fact keys (exact, or prefixes ending in "*") the handler makes stale once it ran;
   * default every fact of the host ("*"), since a restart can change anything it reads.
   */
  readonly invalidates?: readonly string[];
}

/**
 * What undoes a role's changes on a host when one of its tasks fails there (k0sctl's phases
 * declare a CleanUp the same way): run once, after the failure, before the host stops; not in
 * check mode, not when the host became unreachable or was told to stop. It returns what it did,
 * which the host's error carries after the failure's own message ('' when there was nothing to
 * undo: the error stays as it was).
 */
export interface Undo {
  readonly name: string;
  run(ctx: ApplyContext, failure: string): Promise<string>;
}

/**
 * What must be done once per run before a role first changes a host: an etcd snapshot before a
 * control plane changes. The engine runs it on the host whose task is about to change, just
 * before that change, and only once per run for every role sharing `once` (the other hosts
 * wait for it, and stop if it failed: no change without it). Tasks that only wait do not
 * trigger it. In check mode it is reported as what would run first. It returns one line for
 * the report.
 */
export interface BeforeFirstChange {
  readonly name: string;
  /** Run-wide key: roles (and plays) that share it run it once per run. */
  readonly once: string;
  run(ctx: ApplyContext): Promise<string>;
}

export interface Role {
  readonly name: string;
  /** See Undo. */
  readonly undo?: Undo;
  /** See BeforeFirstChange. */
  readonly beforeFirstChange?: BeforeFirstChange;
  /** Defaults for vars; cluster, group and host vars override them. */
  readonly defaults?: Vars;
  readonly tags?: readonly string[];
  readonly tasks: readonly AnyTask[];
  /**
   * How many of the role's tasks may run at once on a host (default 1: in order). Only for
   * tasks that are independent of each other: none reads what another writes, none needs
   * another done first (the images role's imports). Their events interleave; a failure lets
   * the running ones end and starts no other.
   */
  readonly concurrentTasks?: number;
  readonly handlers?: readonly Handler[];
  /** Folder of the role's templates (absolute), when it renders any. */
  readonly templateDir?: string;
}

export interface Play {
  readonly name: string;
  /** Host selector: "all", group names, host names or globs, comma separated or a list. */
  readonly hosts: string | readonly string[];
  readonly roles: readonly Role[];
  /** Batch size: a number of hosts or a percentage ("30%"); default all at once. */
  readonly serial?: number | `${number}%`;
  /** Abort the play when more than this percentage of its hosts failed (default 100: never). */
  readonly maxFailPercentage?: number;
  /** Stop every host of the run when any host of this play fails. */
  readonly anyErrorsFatal?: boolean;
  /**
   * A cleanup play (Ansible's `always`): it runs even when an earlier play stopped the run
   * (anyErrorsFatal, maxFailPercentage), on its hosts that are still reachable, those that
   * failed included. Not after Ctrl-C: the operator asked to stop, and the run says where.
   */
  readonly always?: boolean;
}

export interface Playbook {
  readonly name: string;
  readonly description: string;
  readonly plays: readonly Play[];
}
