// Runs a playbook: plays in order; within a play, hosts in parallel (bounded for the whole
// run), in `serial` batches; a host that fails or is unreachable drops out of later plays.
import type { Connection } from '../ssh/connection.js';
import { UnreachableError } from '../ssh/connection.js';
import { detailFor } from '../ssh/host-error.js';
import type { HostSettings, Inventory } from '../inventory/model.js';
import type { EventSink, RunEventInput } from './events.js';
import { exitCodeFor } from './exit-code.js';
import { FactCache } from './fact-cache.js';
import { newNonce } from './fact-batch.js';
import { loggedConnection } from './logged-connection.js';
import { PlayStop } from './play-stop.js';
import { checkTags } from './playbook-tags.js';
import { batchesOf, limitHosts, playHosts } from './play-hosts.js';
import { emptyRecap, type HostRecap, type RunSummary } from './recap.js';
import { HostStopped, runRolesOnHost } from './run-roles-on-host.js';
import { Semaphore } from './semaphore.js';
import { taskSelector } from './task-selector.js';
import type { Play, Playbook } from './types.js';
import type { PlannedTask } from './planned-task.js';
import { validatePlaybook } from './validate-playbook.js';

export type { RunSummary, HostRecap };

/** So that 50 hosts do not each pull 500 MB from the controller at the same moment. */
export const DEFAULT_TRANSFER_CONCURRENCY = 8;

export interface RunOptions {
  readonly inventory: Inventory;
  readonly playbook: Playbook;
  /** Opens the host's one connection for the run (real SSH or a fake); any failure = unreachable. */
  readonly connect: (host: HostSettings, signal: AbortSignal) => Promise<Connection>;
  /** Hosts in flight at once, across the whole run. */
  readonly concurrency: number;
  /** Stop after plan: nothing changes on any host. */
  readonly check: boolean;
  readonly diff: boolean;
  /** Host selector terms (names, groups, globs, !x, &x); an unknown term is an InputError. */
  readonly limit?: readonly string[];
  /** Tags to run / to skip; one the playbook does not have is an InputError. */
  readonly tags?: readonly string[];
  readonly skipTags?: readonly string[];
  readonly events: EventSink;
  /** Aborted (Ctrl-C): start nothing new, let what runs finish, report "interrupted". */
  readonly signal: AbortSignal;
  /** Initial run-scoped shared values; tasks add theirs with ctx.publish. */
  readonly shared?: Map<string, unknown>;
  /** Large transfers in flight at once across the run (ApplyContext.transfers); default 8. */
  readonly transferConcurrency?: number;
  /** Debug log: every command (label, text, exit code, duration, stderr tail), never stdin. */
  readonly log?: (line: string) => void;
  /** Shown to people when something fails. */
  readonly debugLogPath?: string;
  /** Told each task's plan, with the facts it was planned from, as it plans (plan files). */
  readonly onPlanned?: (planned: PlannedTask) => void;
  /**
   * Awaited once per run, before the first change on any host (never in check mode, never for
   * a task that only waits); every other host awaits the same promise, and a failure stops each
   * host before its change. The state store publishes what preparation wrote here (issue 41).
   */
  readonly beforeAnyChange?: () => Promise<void>;
}

interface RunState {
  readonly options: RunOptions;
  readonly recaps: Map<string, HostRecap>;
  readonly caches: Map<string, FactCache>;
  readonly connections: Map<string, Promise<Connection>>;
  /** Per host, the index of the last play it takes part in: its connection closes after it. */
  readonly lastPlay: Map<string, number>;
  /** Hosts that failed or became unreachable: they take no part in later plays. */
  readonly dropped: Set<string>;
  readonly shared: Map<string, unknown>;
  readonly semaphore: Semaphore;
  readonly transfers: Semaphore;
  readonly selectTask: ReturnType<typeof taskSelector>;
  readonly nonce: string;
  /** Whether a cleanup play after play `index` still needs the host's connection. */
  cleanupAfter(name: string, index: number): boolean;
  readonly log: (line: string) => void;
  emit(event: RunEventInput): void;
}

function connectionFor(run: RunState, host: HostSettings): Promise<Connection> {
  let pending = run.connections.get(host.name);
  if (!pending) {
    // Whatever the connector throws (refused, auth, host key, sudo check), the host is unreachable.
    pending = run.options.connect(host, run.options.signal).then(
      (c) => loggedConnection(c, run.log, run.options.signal),
      (error: unknown) => {
        if (error instanceof UnreachableError) throw error;
        throw new UnreachableError(host.name, detailFor(host.name, error));
      },
    );
    run.connections.set(host.name, pending);
  }
  return pending;
}

/** One host through one play; never throws: the outcome lands in the recap and the events. */
async function runHost(run: RunState, play: Play, name: string, stop: PlayStop): Promise<'done' | 'dropped' | 'stopped'> {
  const { options } = run;
  const host = options.inventory.hosts.find((h) => h.name === name);
  const recap = run.recaps.get(name);
  if (!host || !recap) throw new Error(`internal: host ${name} is not in the run`);
  if (options.signal.aborted || stop.reason) return 'stopped';
  const started = Date.now();
  let outcome: 'done' | 'dropped' | 'stopped' = 'done';
  run.emit({ type: 'host-start', play: play.name, host: name });
  try {
    const connection = await connectionFor(run, host);
    await runRolesOnHost({
      inventory: options.inventory,
      host,
      play,
      connection,
      facts: run.caches.get(name) ?? new FactCache(),
      recap,
      check: options.check,
      diff: options.diff,
      nonce: run.nonce,
      shared: run.shared,
      factOf: (host, key) => run.caches.get(host)?.get(key),
      transfers: run.transfers,
      signal: options.signal,
      stopReason: () => stop.reason,
      selectTask: run.selectTask,
      emit: run.emit,
      log: run.log,
      ...(options.onPlanned ? { onPlanned: options.onPlanned } : {}),
      ...(options.beforeAnyChange ? { beforeAnyChange: options.beforeAnyChange } : {}),
    });
  } catch (error) {
    const kind = error instanceof HostStopped ? error.kind : error instanceof UnreachableError ? 'unreachable' : 'failed';
    const message = error instanceof Error ? error.message : String(error);
    if (kind === 'stopped') {
      outcome = 'stopped';
      run.emit({ type: 'host-stopped', play: play.name, host: name, reason: message });
    } else {
      outcome = 'dropped';
      run.dropped.add(name);
      recap.error = message;
      if (kind === 'unreachable') {
        recap.unreachable = true;
        run.emit({ type: 'host-unreachable', play: play.name, host: name, error: message });
      } else {
        // A failure outside any task (a bug in the engine or a role's facts()) still counts.
        if (recap.failed === 0) recap.failed = 1;
        run.emit({ type: 'host-failed', play: play.name, host: name, error: message });
      }
    }
  } finally {
    recap.durationMs += Date.now() - started;
    const connection = await run.connections.get(name)?.catch(() => undefined);
    if (connection) {
      recap.roundTrips = connection.stats.roundTrips;
      recap.bytesSent = connection.stats.bytesSent;
      recap.bytesReceived = connection.stats.bytesReceived;
    }
    run.emit({
      type: 'host-end',
      play: play.name,
      host: name,
      ok: recap.ok,
      changed: recap.changed,
      skipped: recap.skipped,
      failed: recap.failed,
      unreachable: recap.unreachable,
    });
  }
  return outcome;
}

/**
 * Starts closing the host's connection now, so its server's session teardown overlaps the
 * other hosts' work; the run's end closes every connection again and so waits for this one.
 */
function closeEarly(run: RunState, name: string): void {
  void run.connections
    .get(name)
    ?.then((c) => c.close())
    .catch(() => undefined);
}

/** One play: its hosts in batches; returns why the run must not go on, if it must not. */
async function runPlay(run: RunState, play: Play, index: number, hosts: readonly string[]): Promise<string | undefined> {
  // A cleanup play takes the hosts that failed too, not those that cannot be reached.
  const active = hosts.filter((h) => (play.always ? run.recaps.get(h)?.unreachable !== true : !run.dropped.has(h)));
  run.emit({ type: 'play-start', play: play.name, hosts: active });
  const stop = new PlayStop();
  for (const batch of batchesOf(active, play.serial)) {
    if (stop.reason || run.options.signal.aborted) break;
    let failedInBatch = 0;
    await Promise.all(
      batch.map((name) =>
        run.semaphore.run(async () => {
          const outcome = await runHost(run, play, name, stop);
          if ((outcome === 'dropped' && !run.cleanupAfter(name, index)) || run.lastPlay.get(name) === index) closeEarly(run, name);
          if (outcome !== 'dropped') return;
          failedInBatch += 1;
          // Checked as each host fails, so the others stop before their next task.
          if (play.anyErrorsFatal) stop.request(`play "${play.name}" has anyErrorsFatal and ${name} failed`);
          const maxFail = play.maxFailPercentage ?? 100;
          if ((failedInBatch * 100) / batch.length > maxFail) {
            stop.request(`play "${play.name}": ${failedInBatch} of ${batch.length} hosts in the batch failed, more than the allowed ${maxFail}%`);
          }
        }),
      ),
    );
  }
  run.emit({ type: 'play-end', play: play.name, ...(stop.reason ? { aborted: stop.reason } : {}) });
  return stop.reason;
}

export async function runPlaybook(options: RunOptions): Promise<RunSummary> {
  const { inventory, playbook } = options;
  const started = Date.now();
  validatePlaybook(playbook);
  checkTags(playbook, options.tags, options.skipTags);
  const limited = limitHosts(inventory, options.limit);
  const plays = playbook.plays.map((play) => ({ play, hosts: playHosts(inventory, play).filter((h) => limited.has(h)) }));
  const involved = inventory.hosts.map((h) => h.name).filter((name) => plays.some((p) => p.hosts.includes(name)));

  const run: RunState = {
    options,
    recaps: new Map(involved.map((name) => [name, emptyRecap(name)])),
    caches: new Map(involved.map((name) => [name, new FactCache()])),
    connections: new Map(),
    lastPlay: new Map(plays.flatMap(({ hosts }, index) => hosts.map((h) => [h, index] as const))),
    dropped: new Set(),
    shared: options.shared ?? new Map<string, unknown>(),
    semaphore: new Semaphore(Math.max(1, options.concurrency)),
    transfers: new Semaphore(Math.max(1, options.transferConcurrency ?? DEFAULT_TRANSFER_CONCURRENCY)),
    selectTask: taskSelector(options.tags, options.skipTags),
    nonce: newNonce(),
    cleanupAfter: (name, index) => plays.some(({ play, hosts }, i) => i > index && play.always === true && hosts.includes(name)),
    log: options.log ?? (() => {}),
    emit: (event) => options.events.emit({ ...event, time: Date.now() }),
  };

  run.emit({
    type: 'run-start',
    playbook: playbook.name,
    hosts: involved,
    check: options.check,
    ...(options.debugLogPath ? { debugLog: options.debugLogPath } : {}),
    plays: plays.map(({ play, hosts }) => ({ name: play.name, hosts })),
  });
  try {
    let stopped = false;
    for (const [index, { play, hosts }] of plays.entries()) {
      if (options.signal.aborted) break;
      if (stopped && !play.always) continue;
      if (await runPlay(run, play, index, hosts)) stopped = true;
    }
  } finally {
    await Promise.all(
      [...run.connections.values()].map(async (pending) => {
        const connection = await pending.catch(() => undefined);
        await connection?.close().catch(() => undefined);
      }),
    );
  }
  const hosts = [...run.recaps.values()];
  const interrupted = options.signal.aborted;
  const summary: RunSummary = {
    playbook: playbook.name,
    hosts,
    exitCode: exitCodeFor({ hosts, interrupted, check: options.check }),
    durationMs: Date.now() - started,
    interrupted,
    check: options.check,
    changesPending: options.check && hosts.some((h) => h.changed > 0),
  };
  run.emit({ type: 'run-end', summary });
  return summary;
}
