// One run at a time per cluster: a run that may change hosts or the state folder (CA keys,
// pinned host keys, backups) holds `<stateDir>/lock`, made with O_EXCL so two runs cannot both
// get it. A second run is refused at once with the holder's pid, host and start time (exit 2,
// nothing touched). A lock whose process is gone (same machine, pid not running) is taken
// over with a warning; one held from another machine is never broken automatically.
import type { Inventory } from '../orchestrator/inventory/model.js';
import { inventoryKeyLocation } from '../kubernetes/inventory/source-map.js';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { InputError } from '../orchestrator/engine/input-error.js';

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  readonly command: string;
}

export interface StateLock {
  readonly path: string;
  /** Removes the lock if it is still ours; safe to call more than once. */
  release(): void;
}

/** Locks this process holds, by path, with how many callers hold each (etcd restore runs a playbook inside its own lock). */
const held = new Map<string, { count: number; release: () => void }>();

/** One caller's hold on a lock this process has: the file goes when the last hold is released. */
function holdOf(path: string, entry: { count: number; release: () => void }): StateLock {
  let done = false;
  return {
    path,
    release: () => {
      if (done) return;
      done = true;
      if (--entry.count === 0) entry.release();
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string') return undefined;
    return { pid: value.pid, host: value.host, started: String(value.started ?? 'unknown'), command: String(value.command ?? 'unknown') };
  } catch {
    return undefined;
  }
}

/**
 * Read-only: why the state folder cannot be one (it, or a folder above it, is something else
 * than a directory), in the words the lock refuses it with. `kcluster validate` asks it
 * without creating anything.
 */
export function stateDirProblem(stateDir: string): string | undefined {
  for (let path = resolve(stateDir); ; path = dirname(path)) {
    if (existsSync(path))
      return statSync(path).isDirectory()
        ? undefined
        : `the state folder ${stateDir} is not a directory (something else is at that path): set stateDir in the inventory to a directory`;
    if (dirname(path) === path) return undefined;
  }
}

/** The state folder's problem, at the inventory's stateDir (or cluster.name, which its default comes from). */
export function inventoryStateDirProblem(inventory: Pick<Inventory, 'file' | 'stateDir'>): string | undefined {
  const problem = stateDirProblem(inventory.stateDir);
  return problem === undefined ? undefined : `${inventoryKeyLocation(inventory.file, ['stateDir'], ['cluster', 'name'])}: ${problem}`;
}

function ensureStateDir(stateDir: string): void {
  const problem = stateDirProblem(stateDir);
  if (problem !== undefined) throw new InputError(problem);
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new InputError(`the state folder ${stateDir} is not a directory (something else is at that path): set stateDir in the inventory to a directory`);
    throw new InputError(`cannot create the state folder ${stateDir}: ${(error as Error).message}`);
  }
  if (!statSync(stateDir).isDirectory()) throw new InputError(`the state folder ${stateDir} is not a directory: set stateDir in the inventory to a directory`);
}

/**
 * Takes the lock of `stateDir` for `command`, or throws InputError naming who holds it.
 * `warn` hears about a stale lock taken over.
 */
export function acquireStateLock(stateDir: string, command: string, warn: (line: string) => void): StateLock {
  ensureStateDir(stateDir);
  const path = join(stateDir, 'lock');
  const mine = held.get(path);
  if (mine) {
    mine.count += 1;
    return holdOf(path, mine);
  }
  const me: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new InputError(`cannot create the lock ${path}: ${(error as Error).message}`);
      const holder = readHolder(path);
      if (holder && (holder.host !== me.host || isRunning(holder.pid))) {
        throw new InputError(
          `another kcluster run holds ${path}: pid ${holder.pid} on ${holder.host}, started ${holder.started} (${holder.command}); wait for it to end` +
            (holder.host !== me.host ? `, or if it is gone, delete the lock file` : ''),
        );
      }
      // Its process is gone (or the file is unreadable, from a run killed while writing it):
      // move it aside atomically, so of two runs taking it over only one succeeds.
      const aside = `${path}.stale-${process.pid}`;
      try {
        renameSync(path, aside);
        unlinkSync(aside);
      } catch {
        continue; // another run took it over first: the next try reports that run
      }
      warn(
        `kcluster: warning: took over the lock ${path} left by ${holder ? `pid ${holder.pid} (${holder.command}, started ${holder.started}), which is no longer running` : 'a run that did not finish writing it'}`,
      );
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held.delete(path);
      process.removeListener('exit', release);
      const holder = readHolder(path);
      if (holder?.pid === me.pid && holder.host === me.host) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
    };
    // A forced exit (a second Ctrl-C, the stop deadline) still leaves no lock behind.
    process.on('exit', release);
    const entry = { count: 1, release };
    held.set(path, entry);
    return holdOf(path, entry);
  }
  throw new InputError(`could not take the lock ${path}: another run took it over at the same moment; try again`);
}
