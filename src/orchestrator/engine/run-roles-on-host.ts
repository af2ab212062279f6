// One host, one play: its roles in order. Per role: gather every fact the selected tasks need
// in ONE command, plan each task locally, apply what differs, verify, then run the handlers
// that a change notified.
import { detailFor } from '../ssh/host-error.js';
import { UnreachableError, type Connection } from '../ssh/connection.js';
import type { HostSettings, Inventory, Vars } from '../inventory/model.js';
import { deepMerge } from '../inventory/deep-merge.js';
import type { Semaphore } from './semaphore.js';
import { isPending, type Change } from './change.js';
import type { Fact, FactMap } from './fact.js';
import type { FactCache } from './fact-cache.js';
import type { RunEventInput } from './events.js';
import { factValues, gatherFacts, type GatherContext } from './gather-facts.js';
import type { HostRecap } from './recap.js';
import type { PlannedTask } from './planned-task.js';
import type { AnyTask, ApplyContext, BeforeFirstChange, HostContext, Play, Role } from './types.js';

export interface HostRunContext {
  readonly inventory: Inventory;
  readonly host: HostSettings;
  readonly play: Play;
  readonly connection: Connection;
  readonly facts: FactCache;
  readonly recap: HostRecap;
  readonly check: boolean;
  readonly diff: boolean;
  readonly nonce: string;
  /** Run-scoped: what tasks publish is visible to every host's later tasks. */
  readonly shared: Map<string, unknown>;
  /** What the other hosts of the run gathered (their fact caches), by host and fact key. */
  readonly factOf: (host: string, key: string) => unknown;
  /** The run-wide bound on large transfers. */
  readonly transfers: Semaphore;
  readonly signal: AbortSignal;
  /** Set when the play must stop (anyErrorsFatal, maxFailPercentage): no further task starts. */
  stopReason(): string | undefined;
  readonly selectTask: (task: AnyTask, role: Role) => boolean;
  emit(event: RunEventInput): void;
  log(line: string): void;
  /** Told each task's plan and the facts it was planned from (plan files). */
  readonly onPlanned?: (planned: PlannedTask) => void;
  /** See RunOptions.beforeAnyChange. */
  readonly beforeAnyChange?: () => Promise<void>;
}

/** The host stopped: a task failed, it became unreachable, or it was told to stop. */
export class HostStopped extends Error {
  constructor(
    readonly kind: 'failed' | 'unreachable' | 'stopped',
    message: string,
  ) {
    super(message);
    this.name = 'HostStopped';
  }
}

type Outcome = { status: 'ok' | 'skipped'; reason: string; warning?: string } | { status: 'changed'; summary: string; diff?: string };

/** Turns any error of a task or handler into the host's stop, with the host name first. */
function stopFor(run: HostRunContext, where: string, error: unknown): HostStopped {
  if (error instanceof HostStopped) return error;
  // What the host was doing when it was lost: the SSH layer names the command, this the task.
  if (error instanceof UnreachableError) return new HostStopped('unreachable', `${error.message} (in ${where})`);
  run.recap.failed += 1;
  return new HostStopped('failed', `${run.host.name}: ${where}: ${detailFor(run.host.name, error)}`);
}

function checkStop(run: HostRunContext, next: string): void {
  if (run.signal.aborted) throw new HostStopped('stopped', `${run.host.name}: interrupted before ${next}`);
  const reason = run.stopReason();
  if (reason) throw new HostStopped('stopped', `${run.host.name}: stopped before ${next}: ${reason}`);
}

/** A role's apply context before it is given to one task, handler, undo or hook (see applyContextOf). */
type RoleApplyContext = Omit<ApplyContext, 'progress'>;

/**
 * The apply context of what runs now (`doing`: a task's name, `handler NAME`, `undo NAME`):
 * its progress lines name it, since a role's tasks may run at once (Role.concurrentTasks).
 */
function applyContextOf(run: HostRunContext, role: Role, base: RoleApplyContext, doing: string): ApplyContext {
  return {
    ...base,
    progress: (message) => run.emit({ type: 'task-progress', play: run.play.name, host: run.host.name, role: role.name, task: doing, message }),
  };
}

/** What a plan file fingerprints of a fact's value: without its volatile fields (see Fact.volatile). */
function stableValue(fact: Fact<unknown>, value: unknown): unknown {
  if (fact.volatile === undefined || typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !fact.volatile!.includes(name)));
}

async function planApplyVerify(
  run: HostRunContext,
  gatherCtx: GatherContext,
  role: Role,
  task: AnyTask,
  ctx: HostContext,
  applyCtx: RoleApplyContext,
): Promise<Outcome> {
  const factMap = task.facts(ctx) as FactMap;
  const facts = Object.values(factMap);
  const before = await gatherFacts(gatherCtx, role.name, facts);
  const change: Change = task.plan(factValues(before, factMap), ctx);
  run.onPlanned?.({
    play: run.play.name,
    host: run.host.name,
    role: role.name,
    task: task.name,
    change,
    facts: facts.map((f) => ({ key: f.key, value: stableValue(f, before.get(f.key)) })),
  });
  if (change.kind === 'none') return { status: 'ok', reason: change.reason, ...(change.warning !== undefined ? { warning: change.warning } : {}) };
  if (change.kind === 'skip') return { status: 'skipped', reason: change.reason };
  const waits = change.kind === 'wait';
  const outcome: Outcome = { status: 'changed', summary: change.summary, ...(run.diff && change.diff !== undefined ? { diff: change.diff } : {}) };
  if (!waits && !run.check && run.beforeAnyChange !== undefined) await beforeAnyChange(run, run.beforeAnyChange);
  if (!waits && role.beforeFirstChange !== undefined) await beforeFirstChange(run, role, role.beforeFirstChange, applyCtx);
  if (run.check) return waits ? { status: 'ok', reason: `would ${change.summary}` } : outcome;
  const started = Date.now();
  const taskCtx = applyContextOf(run, role, applyCtx, task.name);
  try {
    await task.apply(change, taskCtx);
  } finally {
    // Even a failed apply may have changed the host: never plan on what it read before.
    run.facts.invalidate([...facts.map((f) => f.key), ...(task.invalidates ?? [])]);
  }
  if (typeof task.verify === 'function') {
    await task.verify(taskCtx);
  } else if (task.verify !== false) {
    const after = task.plan(factValues(await gatherFacts(gatherCtx, role.name, facts), factMap), ctx);
    if (isPending(after)) throw new Error(`did not converge: ${after.summary} (still planned after apply)`);
  }
  return waits ? { status: 'ok', reason: `${change.summary}: done after ${((Date.now() - started) / 1000).toFixed(1)} s` } : outcome;
}

interface TaskResult {
  readonly status: 'ok' | 'changed' | 'skipped' | 'failed';
  readonly summary?: string;
  readonly reason?: string;
  readonly warning?: string;
  readonly diff?: string;
  readonly error?: string;
}

/** Says a task started on the host; the function it returns says how it ended (with its duration and round trips). */
function taskStarted(run: HostRunContext, role: Role, task: string): (result: TaskResult) => void {
  const base = { play: run.play.name, host: run.host.name, role: role.name, task, check: run.check };
  run.emit({ type: 'task-start', play: base.play, host: base.host, role: base.role, task });
  const started = Date.now();
  return (result) => run.emit({ type: 'task-result', ...base, ...result, durationMs: Date.now() - started, roundTrips: run.connection.stats.roundTrips });
}

/** The run-wide barrier before the first change on any host: started once, awaited by every host. */
async function beforeAnyChange(run: HostRunContext, barrier: () => Promise<void>): Promise<void> {
  const key = 'before-any-change';
  let running = run.shared.get(key) as Promise<void> | undefined;
  if (running === undefined) {
    running = barrier();
    running.catch(() => undefined); // awaited by each host below: not an unhandled rejection
    run.shared.set(key, running);
  }
  try {
    await running;
  } catch (error) {
    throw new Error(`before the first change of this run: ${(error as Error).message}; nothing was changed on ${run.host.name}`, { cause: error });
  }
}

/**
 * A role's BeforeFirstChange, once per run (see types.ts): the first host about to change runs
 * it, reported as a task of its own; every other host awaits the same promise, so a failed one
 * stops them before their change too.
 */
async function beforeFirstChange(run: HostRunContext, role: Role, hook: BeforeFirstChange, applyCtx: RoleApplyContext): Promise<void> {
  const key = `before-first-change:${hook.once}`;
  const running = run.shared.get(key) as Promise<void> | undefined;
  if (running !== undefined) {
    await running.catch((error: unknown) => {
      throw new Error(`${hook.name} failed on another host (${(error as Error).message}): no change without it`);
    });
    return;
  }
  const done = taskStarted(run, role, hook.name);
  run.recap.changed += 1;
  if (run.check) {
    run.shared.set(key, Promise.resolve());
    done({ status: 'changed', summary: hook.name });
    return;
  }
  const said = hook.run(applyContextOf(run, role, applyCtx, hook.name));
  const settled = said.then(() => undefined);
  settled.catch(() => undefined); // awaited by the other hosts, if any: not an unhandled rejection
  run.shared.set(key, settled);
  try {
    done({ status: 'changed', summary: await said });
  } catch (error) {
    run.recap.changed -= 1;
    const detail = detailFor(run.host.name, error);
    done({ status: 'failed', error: detail });
    if (error instanceof UnreachableError) throw error;
    throw new Error(`${hook.name}, before this change, failed (nothing was changed): ${detail}`, { cause: error });
  }
}

async function runTask(
  run: HostRunContext,
  gatherCtx: GatherContext,
  role: Role,
  task: AnyTask,
  ctx: HostContext,
  applyCtx: RoleApplyContext,
  notified: Set<string>,
): Promise<void> {
  const done = taskStarted(run, role, task.name);
  let outcome: Outcome;
  try {
    outcome = await planApplyVerify(run, gatherCtx, role, task, ctx, applyCtx);
  } catch (error) {
    const stop = stopFor(run, `${role.name} / ${task.name}`, error);
    done({ status: 'failed', error: stop.message });
    throw stop;
  }
  if (outcome.status === 'changed') {
    run.recap.changed += 1;
    for (const handler of task.notify ?? []) notified.add(handler);
  } else if (outcome.status === 'ok') run.recap.ok += 1;
  else run.recap.skipped += 1;
  done(outcome);
}

/** A failed role's undo (see Undo): the host's error, with what the undo did or why it failed too. */
async function undoRole(
  run: HostRunContext,
  role: Role,
  undo: NonNullable<Role['undo']>,
  applyCtx: RoleApplyContext,
  failure: HostStopped,
): Promise<HostStopped> {
  const base = { play: run.play.name, host: run.host.name, role: role.name, undo: undo.name };
  try {
    const said = await undo.run(applyContextOf(run, role, applyCtx, `undo ${undo.name}`), failure.message);
    run.emit({ type: 'undo-result', ...base, status: 'changed', summary: said || 'nothing to undo' });
    return said === '' ? failure : new HostStopped('failed', `${failure.message} ${said}`);
  } catch (error) {
    const detail = detailFor(run.host.name, error);
    run.emit({ type: 'undo-result', ...base, status: 'failed', error: detail });
    return new HostStopped(error instanceof UnreachableError ? 'unreachable' : 'failed', `${failure.message} Undoing it (${undo.name}) failed too: ${detail}`);
  }
}

/** Notified handlers, once each, in the order the role defines them. */
async function runHandlers(run: HostRunContext, role: Role, applyCtx: RoleApplyContext, notified: ReadonlySet<string>): Promise<void> {
  for (const handler of role.handlers ?? []) {
    if (!notified.has(handler.name)) continue;
    const base = { play: run.play.name, host: run.host.name, role: role.name, handler: handler.name, check: run.check };
    if (run.check) {
      run.emit({ type: 'handler-result', ...base, status: 'changed' });
      continue;
    }
    try {
      try {
        await handler.run(applyContextOf(run, role, applyCtx, `handler ${handler.name}`));
      } finally {
        run.facts.invalidate(handler.invalidates ?? ['*']);
      }
      run.emit({ type: 'handler-result', ...base, status: 'changed' });
    } catch (error) {
      const stop = stopFor(run, `${role.name} / handler ${handler.name}`, error);
      run.emit({ type: 'handler-result', ...base, status: 'failed', error: stop.message });
      throw stop;
    }
  }
}

/**
 * A task's facts if they can be named before the role runs; a task whose facts depend on a
 * value an earlier task publishes gets them gathered at its turn (and fails there if it must).
 */
function factsKnownNow(task: AnyTask, ctx: HostContext): FactMap[string][] {
  try {
    return Object.values(task.facts(ctx) as FactMap);
  } catch {
    return [];
  }
}

/**
 * The role's tasks in order, at most `width` at a time (Role.concurrentTasks). The first
 * failure starts no further task; the running ones end before it is thrown, so no command is
 * left running behind the host's stop.
 */
async function runTasks(tasks: readonly AnyTask[], width: number, run: (task: AnyTask) => Promise<void>): Promise<void> {
  if (!Number.isInteger(width) || width < 1) throw new Error(`concurrentTasks must be a whole number of at least 1 (got ${width})`);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < tasks.length) {
      const task = tasks[next++]!;
      try {
        await run(task);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, lane));
  if (failure !== undefined) throw failure.error;
}

export async function runRolesOnHost(run: HostRunContext): Promise<void> {
  const gatherCtx: GatherContext = { host: run.host.name, connection: run.connection, cache: run.facts, nonce: run.nonce, emit: run.emit };
  for (const role of run.play.roles) {
    const tasks = role.tasks.filter((t) => run.selectTask(t, role));
    if (tasks.length === 0) continue;
    checkStop(run, `role ${role.name}`);
    run.emit({ type: 'role-start', play: run.play.name, host: run.host.name, role: role.name });
    const vars: Vars = deepMerge(role.defaults ?? {}, run.host.vars);
    const ctx: HostContext = {
      host: run.host,
      inventory: run.inventory,
      vars,
      shared: run.shared,
      factOf: <T>(host: string, fact: Fact<T>) => run.factOf(host, fact.key) as T | undefined,
    };
    const applyCtx: RoleApplyContext = {
      ...ctx,
      connection: run.connection,
      signal: run.signal,
      transfers: run.transfers,
      log: (message) => run.log(`${run.host.name}: ${role.name}: ${message}`),
      publish: (key, value) => void run.shared.set(key, value),
    };
    // Every fact of the role in one round trip, before the first task plans.
    try {
      await gatherFacts(
        gatherCtx,
        role.name,
        tasks.flatMap((t) => factsKnownNow(t, ctx)),
      );
    } catch (error) {
      throw stopFor(run, role.name, error);
    }
    const notified = new Set<string>();
    try {
      await runTasks(tasks, role.concurrentTasks ?? 1, async (task) => {
        checkStop(run, task.name);
        await runTask(run, gatherCtx, role, task, ctx, applyCtx, notified);
      });
    } catch (error) {
      // Told to stop (Ctrl-C, a fatal play): changes already made still get their handlers,
      // since a later run would find them converged and never notify again.
      if (error instanceof HostStopped && error.kind === 'stopped') await runHandlers(run, role, applyCtx, notified);
      if (error instanceof HostStopped && error.kind === 'failed' && role.undo !== undefined && !run.check)
        throw await undoRole(run, role, role.undo, applyCtx, error);
      throw error;
    }
    await runHandlers(run, role, applyCtx, notified);
  }
}
