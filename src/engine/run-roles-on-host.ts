// One host, one play: its roles in order. Per role: gather every fact the selected tasks need
// in ONE command, plan each task locally, apply what differs, verify, then run the handlers
// that a change notified.
import { UnreachableError, type Connection } from '../ssh/connection.js';
import type { HostSettings, Inventory, Vars } from '../inventory/model.js';
import { deepMerge } from '../inventory/deep-merge.js';
import { isPending, type Change } from './change.js';
import type { Fact, FactMap } from './fact.js';
import { buildFactBatch, parseFactBatch } from './fact-batch.js';
import type { FactCache } from './fact-cache.js';
import type { RunEventInput } from './events.js';
import type { HostRecap } from './recap.js';
import type { AnyTask, ApplyContext, HostContext, Play, Role } from './types.js';

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
  readonly shared: Map<string, unknown>;
  readonly signal: AbortSignal;
  readonly selectTask: (task: AnyTask, role: Role) => boolean;
  emit(event: RunEventInput): void;
  log(line: string): void;
}

/** The host stopped: a task failed, or it became unreachable. */
export class HostStopped extends Error {
  constructor(
    readonly kind: 'failed' | 'unreachable' | 'interrupted',
    message: string,
  ) {
    super(message);
  }
}

async function gather(run: HostRunContext, role: string, facts: readonly Fact<unknown>[]): Promise<void> {
  const missing = [...new Map(facts.filter((f) => !run.facts.has(f.key)).map((f) => [f.key, f])).values()];
  if (missing.length === 0) return;
  const started = Date.now();
  const become = missing.some((f) => f.become);
  const result = await run.connection.exec(buildFactBatch(missing, run.nonce), { become, label: `facts:${role}` });
  let sections;
  try {
    sections = parseFactBatch(result.stdout, missing.length, run.nonce);
  } catch (error) {
    const stderr = result.stderr.trim().split('\n').slice(-5).join(' | ');
    throw new Error(`gathering facts failed (exit ${result.code}): ${(error as Error).message}${stderr ? `; stderr: ${stderr}` : ''}`);
  }
  missing.forEach((fact, i) => {
    const section = sections[i]!;
    try {
      run.facts.set(fact.key, fact.parse(section.stdout, section.exitCode));
    } catch (error) {
      throw new Error(`fact ${fact.key}: cannot read it (${(error as Error).message})${result.stderr.trim() ? `; stderr: ${result.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
    }
  });
  run.emit({ type: 'facts-gathered', host: run.host.name, role, keys: missing.map((f) => f.key), roundTrips: run.connection.stats.roundTrips, durationMs: Date.now() - started });
}

function valuesOf(run: HostRunContext, map: FactMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, fact] of Object.entries(map)) out[name] = run.facts.get(fact.key);
  return out;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runTask(run: HostRunContext, role: Role, task: AnyTask, ctx: HostContext, applyCtx: ApplyContext, notified: Set<string>): Promise<void> {
  const base = { play: run.play.name, host: run.host.name, role: role.name, task: task.name };
  run.emit({ type: 'task-start', ...base });
  const started = Date.now();
  const result = (status: 'ok' | 'changed' | 'skipped' | 'failed', extra: { summary?: string; reason?: string; diff?: string; error?: string } = {}): void => {
    run.emit({ type: 'task-result', ...base, status, ...extra, durationMs: Date.now() - started, roundTrips: run.connection.stats.roundTrips, check: run.check });
  };
  const factMap = task.facts(ctx) as FactMap;
  let change: Change;
  try {
    await gather(run, role.name, Object.values(factMap));
    change = task.plan(valuesOf(run, factMap), ctx);
    if (isPending(change) && !run.check) {
      await task.apply(change, applyCtx);
      run.facts.invalidate([...Object.values(factMap).map((f) => f.key), ...(task.invalidates ?? [])]);
      if (typeof task.verify === 'function') await task.verify(applyCtx);
      else if (task.verify !== false) {
        await gather(run, role.name, Object.values(factMap));
        const after = task.plan(valuesOf(run, factMap), ctx);
        if (isPending(after)) throw new Error(`did not converge: after applying, the plan is still "${after.summary}"`);
      }
    }
  } catch (error) {
    if (error instanceof UnreachableError) {
      result('failed', { error: error.message });
      throw new HostStopped('unreachable', error.message);
    }
    const message = `${run.host.name}: ${role.name} / ${task.name}: ${describeError(error).replace(new RegExp(`^${run.host.name}: `), '')}`;
    run.recap.failed += 1;
    result('failed', { error: message });
    throw new HostStopped('failed', message);
  }
  if (change.kind === 'none') {
    run.recap.ok += 1;
    result('ok', { reason: change.reason });
  } else if (change.kind === 'skip') {
    run.recap.skipped += 1;
    result('skipped', { reason: change.reason });
  } else {
    run.recap.changed += 1;
    for (const handler of task.notify ?? []) notified.add(handler);
    result('changed', { summary: change.summary, ...(run.diff && change.diff ? { diff: change.diff } : {}) });
  }
}

async function runHandlers(run: HostRunContext, role: Role, applyCtx: ApplyContext, notified: Set<string>): Promise<void> {
  for (const handler of role.handlers ?? []) {
    if (!notified.has(handler.name)) continue;
    const base = { play: run.play.name, host: run.host.name, role: role.name, handler: handler.name, check: run.check };
    if (run.check) {
      run.emit({ type: 'handler-result', ...base, status: 'changed' });
      continue;
    }
    try {
      await handler.run(applyCtx);
      run.emit({ type: 'handler-result', ...base, status: 'changed' });
    } catch (error) {
      const message = `${run.host.name}: ${role.name} / handler ${handler.name}: ${describeError(error)}`;
      run.emit({ type: 'handler-result', ...base, status: 'failed', error: message });
      if (error instanceof UnreachableError) throw new HostStopped('unreachable', error.message);
      run.recap.failed += 1;
      throw new HostStopped('failed', message);
    }
  }
}

export async function runRolesOnHost(run: HostRunContext): Promise<void> {
  for (const role of run.play.roles) {
    const tasks = role.tasks.filter((t) => run.selectTask(t, role));
    if (tasks.length === 0) continue;
    run.emit({ type: 'role-start', play: run.play.name, host: run.host.name, role: role.name });
    const vars: Vars = deepMerge(role.defaults ?? {}, run.host.vars);
    const ctx: HostContext = { host: run.host, inventory: run.inventory, vars, shared: run.shared };
    const applyCtx: ApplyContext = {
      ...ctx,
      connection: run.connection,
      signal: run.signal,
      log: (message) => run.log(`${run.host.name}: ${message}`),
      publish: (key, value) => run.shared.set(key, value),
    };
    // All facts of the role in one round trip, before the first task plans.
    try {
      await gather(run, role.name, tasks.flatMap((t) => Object.values(t.facts(ctx) as FactMap)));
    } catch (error) {
      if (error instanceof UnreachableError) throw new HostStopped('unreachable', error.message);
      run.recap.failed += 1;
      throw new HostStopped('failed', `${run.host.name}: ${role.name}: ${describeError(error)}`);
    }
    const notified = new Set<string>();
    for (const task of tasks) {
      if (run.signal.aborted) throw new HostStopped('interrupted', `${run.host.name}: interrupted before ${task.name}`);
      await runTask(run, role, task, ctx, applyCtx, notified);
    }
    await runHandlers(run, role, applyCtx, notified);
  }
}
