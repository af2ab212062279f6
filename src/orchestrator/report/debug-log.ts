// The debug log: always written, one timestamped entry per event and per command. Its path
// is printed when something fails. Entries are buffered and written at most every 100 ms
// (one write instead of one per line: a 20-host no-op run logs about 1,300 entries), and
// flushed on close and when the process exits, whatever the reason.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DebugLog {
  readonly path: string;
  write(line: string): void;
  /** Write what is buffered now. */
  flush(): void;
  close(): void;
}

export function createDebugLog(path: string, flushEveryMs = 100): DebugLog {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'a', 0o600);
  let open = true;
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!open || pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    writeSync(fd, text);
  };
  process.on('exit', flush);
  return {
    path,
    write(line) {
      if (!open) return;
      pending.push(`${new Date().toISOString()} ${line}\n`);
      if (!timer) {
        timer = setTimeout(flush, flushEveryMs);
        timer.unref();
      }
    },
    flush,
    close() {
      if (!open) return;
      flush();
      open = false;
      process.off('exit', flush);
      closeSync(fd);
    },
  };
}
