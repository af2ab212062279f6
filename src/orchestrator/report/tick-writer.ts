// Text for a stream, gathered over one tick of the event loop and written in one go: a run
// reports about 1,300 events at 20 hosts, and a write per event is a stream call (and, to a
// file or terminal, a system call) each.
import type { Writable } from 'node:stream';

export interface TickWriter {
  write(text: string): void;
  /** Write what is gathered now (before writing elsewhere, and at the end). */
  flush(): void;
}

export function tickWriter(out: Writable): TickWriter {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    out.write(text);
  };
  return {
    write(text) {
      pending.push(text);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
