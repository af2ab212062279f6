// Runs a playbook: plays in order; within a play, hosts in parallel (bounded for the whole
// run), in `serial` batches; a host that fails or is unreachable drops out of later plays.
import type { Connection } from '../ssh/connection.js';
import { UnreachableError } from '../ssh/connection.js';
import type { HostSettings, Inventory } from '../inventory/model.js';
import { selectHosts } from '../inventory/select-hosts.js';
import type { EventSink, RunEventInput } from './events.js';
import { exitCodeFor } from './exit-code.js';
import { FactCache } from './fact-cache.js';
import { newNonce } from './fact-batch.js';
import { InputError } from './input-error.js';
import { loggedConnection } from './logged-connection.js';
import { emptyRecap, type HostRecap, type RunSummary } from './recap.js';
import { HostStopped, runRolesOnHost } from './run-roles-on-host.js';
import { Semaphore } from './semaphore.js';
import { taskSelector } from './task-selector.js';
import type { Play, Playbook } from './types.js';

export type { RunSummary, HostRecap };

export interface RunOptions {
  readonly inventory: Inventory;
  readonly playbook: Playbook;
  readonly connect: (host: HostSettings, signal: AbortSignal) => Promise<Connection>;
  readonly concurrency: number;
  readonly check: boolean;
  readonly diff: boolean;
  readonly limit?: readonly string[];
  readonly tags?: readonly string[];
  readonly skipTags?: readonly string[];
  readonly events: EventSink;
  readonly signal: AbortSignal;
  readonly shared?: Map<string, unknown>;
  /** Debug log: every command, never stdin. */
  readonly log?: (line: string) => void;
  readonly debugLogPath?: string;
}

function batchesOf(hosts: readonly string[], serial: Play['serial']): string[][] {
  if (serial === undefined) return [[...hosts]];
  const size = typeof serial === 'number' ? serial : Math.max(1, Math.floor((hosts.length * Number(serial.slice(0, -1))) / 100));
  const out: string[][] = [];
  for (let i = 0; i < hosts.length; i += Math.max(1, size)) out.push(hosts.slice(i, i + Math.max(1, size)));
  return out;
}

function playHosts(inventory: Inventory, play: Play): string[] {
  const selection = selectHosts(inventory, play.hosts);
  if (selection.unknown.length > 0) throw new InputError(`play "${play.name}" selects unknown hosts or groups: ${selection.unknown.join(', ')}`);
  return selection.hosts;
}

export async function runPlaybook(options: RunOptions): Promise<RunSummary> {
  const { inventory, playbook } = options;
  const started = Date.now();
  const log = options.log ?? (() => {});
  const emit = (event: RunEventInput): void => options.events.emit({ ...event, time: Date.now() } as never);

  let limited = inventory.hosts.map((h) => h.name);
  if (options.limit && options.limit.length > 0) {
    const selection = selectHosts(inventory, options.limit);
    if (selection.unknown.length > 0) throw new InputError(`--limit: no host or group named ${selection.unknown.map((u) => `"${u}"`).join(', ')}`);
    limited = selection.hosts;
  }
  const plays = playbook.plays.map((play) => ({ play, hosts: playHosts(inventory, play).filter((h) => limited.includes(h)) }));
  const involved = inventory.hosts.map((h) => h.name).filter((name) => plays.some((p) => p.hosts.includes(name)));

  const recaps = new Map(involved.map((name) => [name, emptyRecap(name)]));
  const caches = new Map(involved.map((name) => [name, new FactCache()]));
  const connections = new Map<string, Promise<Connection>>();
  const stopped = new Set<string>();
  const shared = options.shared ?? new Map<string, unknown>();
  const semaphore = new Semaphore(options.concurrency);
  const selectTask = taskSelector(options.tags, options.skipTags);
  const nonce = newNonce();
  let interrupted = false;
  let fatal: string | undefined;

  emit({ type: 'run-start', playbook: playbook.name, hosts: involved, check: options.check, ...(options.debugLogPath ? { debugLog: options.debugLogPath } : {}) });

  const connectionFor = (host: HostSettings): Promise<Connection> => {
    let pending = connections.get(host.name);
    if (!pending) {
      pending = options.connect(host, options.signal).then((c) => loggedConnection(c, log));
      connections.set(host.name, pending);
    }
    return pending;
  };

  async function runHost(play: Play, name: string): Promise<void> {
    const host = inventory.hosts.find((h) => h.name === name)!;
    const recap = recaps.get(name)!;
    if (options.signal.aborted) {
      interrupted = true;
      return;
    }
    const hostStarted = Date.now();
    emit({ type: 'host-start', play: play.name, host: name });
    try {
      const connection = await connectionFor(host);
      await runRolesOnHost({
        inventory,
        host,
        play,
        connection,
        facts: caches.get(name)!,
        recap,
        check: options.check,
        diff: options.diff,
        nonce,
        shared,
        signal: options.signal,
        selectTask,
        emit,
        log,
      });
    } catch (error) {
      stopped.add(name);
      const kind = error instanceof HostStopped ? error.kind : error instanceof UnreachableError ? 'unreachable' : 'failed';
      const message = error instanceof Error ? error.message : String(error);
      if (kind === 'interrupted') interrupted = true;
      else if (kind === 'unreachable') {
        recap.unreachable = true;
        recap.error = message;
        emit({ type: 'host-unreachable', play: play.name, host: name, error: message });
      } else {
        if (!(error instanceof HostStopped)) recap.failed += 1;
        recap.error = message;
        emit({ type: 'host-failed', play: play.name, host: name, error: message });
      }
    } finally {
      recap.durationMs += Date.now() - hostStarted;
      const connection = await connections.get(name)?.catch(() => undefined);
      if (connection) Object.assign(recap, { roundTrips: connection.stats.roundTrips, bytesSent: connection.stats.bytesSent, bytesReceived: connection.stats.bytesReceived });
      emit({ type: 'host-end', play: play.name, host: name, ok: recap.ok, changed: recap.changed, failed: recap.failed, unreachable: recap.unreachable });
    }
  }

  for (const { play, hosts } of plays) {
    if (fatal || interrupted || options.signal.aborted) break;
    const active = hosts.filter((h) => !stopped.has(h));
    emit({ type: 'play-start', play: play.name, hosts: active });
    let aborted: string | undefined;
    for (const batch of batchesOf(active, play.serial)) {
      await Promise.all(batch.map((name) => semaphore.run(() => runHost(play, name))));
      const failedInPlay = active.filter((h) => stopped.has(h)).length;
      if (play.anyErrorsFatal && failedInPlay > 0) {
        aborted = fatal = `play "${play.name}" has any-errors-fatal and ${failedInPlay} host(s) failed`;
        break;
      }
      const maxFail = play.maxFailPercentage ?? 100;
      if (active.length > 0 && (failedInPlay * 100) / active.length > maxFail) {
        aborted = fatal = `play "${play.name}": ${failedInPlay} of ${active.length} hosts failed, more than the allowed ${maxFail}%`;
        break;
      }
      if (options.signal.aborted) break;
    }
    emit({ type: 'play-end', play: play.name, ...(aborted ? { aborted } : {}) });
  }
  if (options.signal.aborted) interrupted = true;

  await Promise.all(
    [...connections.values()].map(async (pending) => {
      const connection = await pending.catch(() => undefined);
      await connection?.close().catch(() => undefined);
    }),
  );
  const hosts = [...recaps.values()];
  const base = { hosts, interrupted, check: options.check };
  const summary: RunSummary = {
    playbook: playbook.name,
    hosts,
    exitCode: exitCodeFor(base),
    durationMs: Date.now() - started,
    interrupted,
    check: options.check,
    changesPending: options.check && hosts.some((h) => h.changed > 0),
  };
  emit({ type: 'run-end', summary });
  return summary;
}
