// The debug log: always written, one timestamped entry per event and per command. Its path
// is printed when something fails.
import { mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DebugLog {
  readonly path: string;
  write(line: string): void;
  close(): void;
}

export function createDebugLog(path: string): DebugLog {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'a', 0o600);
  let open = true;
  return {
    path,
    write(line) {
      if (open) writeSync(fd, `${new Date().toISOString()} ${line}\n`);
    },
    close() {
      if (open) {
        open = false;
        closeSync(fd);
      }
    },
  };
}
