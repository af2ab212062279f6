// kcluster as a child process whose NDJSON events a test watches as they arrive, to act in the
// middle of a run (send it a signal, cut a host off) at a point the events name.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** Each whole line of a stream as it arrives (NDJSON events one a line; a line cut between chunks waits for its end). */
export function forEachLine(stream: Readable, onLine: (line: string) => void): void {
  let partial = '';
  stream.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}

export interface WatchedRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `kcluster ARGS --output json` (CI=true, no prompt); `onEvent` sees each event in order and may signal the child. */
export async function kclusterWatched(args: readonly string[], onEvent: (event: Record<string, unknown>, child: ChildProcess) => void): Promise<WatchedRun> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '../../../bin/kcluster.js'), ...args, '--output', 'json'], {
    env: { ...process.env, CI: 'true' },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  forEachLine(child.stdout, (line) => {
    if (line.startsWith('{')) onEvent(JSON.parse(line) as Record<string, unknown>, child);
  });
  // A child ended by a signal it did not handle has no code: 128 + the signal's number, as a shell says.
  const code = await new Promise<number>((resolve) =>
    child.on('close', (c, signal) => resolve(c ?? (signal === 'SIGKILL' ? 137 : signal === 'SIGINT' ? 130 : 1))),
  );
  return { code, out, err };
}
