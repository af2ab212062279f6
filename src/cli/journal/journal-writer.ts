// Appends records to one run's journal file: buffered for the current turn of the event loop,
// then written and fsynced together, so a SIGKILL loses at most the records of that turn and
// leaves at worst a torn last line (the reader skips it). Opening a run's file deletes the
// oldest files beyond the retention count.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_KEEP, type JournalRecord } from './journal-records.js';

export interface JournalWriter {
  readonly file: string;
  append(record: JournalRecord): void;
  /** Writes and fsyncs what is buffered now (also done on the next turn of the event loop). */
  flush(): void;
  /** Flushes and closes; later appends are dropped. */
  close(): void;
}

/** Journal files of a folder, oldest first (run ids start with their UTC start time). */
export function journalFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function prune(dir: string, keep: number, mine: string): void {
  const others = journalFiles(dir).filter((name) => name !== mine);
  for (const name of others.slice(0, Math.max(0, others.length - (keep - 1)))) {
    try {
      unlinkSync(join(dir, name));
    } catch {
      // gone already (another run pruned it)
    }
  }
}

/**
 * Creates `<dir>/<id>.jsonl` (0600, the folder 0700) and keeps `keep` files in all. Throws on
 * a file system error; `onError` hears about a later write failure once, after which the writer
 * drops what it is given (the run goes on without its journal).
 */
export function openJournal(dir: string, id: string, onError: (error: Error) => void, keep = JOURNAL_KEEP): JournalWriter {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${id}.jsonl`;
  const file = join(dir, name);
  let fd: number | undefined = openSync(file, 'ax', 0o600);
  prune(dir, keep, name);
  let buffer: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (fd === undefined || buffer.length === 0) return;
    const text = buffer.join('');
    buffer = [];
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } catch (error) {
      const failed = fd;
      fd = undefined;
      try {
        closeSync(failed);
      } catch {
        // already unusable
      }
      onError(error as Error);
    }
  };
  // A forced exit (a second Ctrl-C, the stop deadline) still writes what was buffered.
  const onExit = (): void => flush();
  process.on('exit', onExit);
  return {
    file,
    append(record) {
      if (fd === undefined) return;
      buffer.push(`${JSON.stringify(record)}\n`);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
    close() {
      flush();
      process.removeListener('exit', onExit);
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
