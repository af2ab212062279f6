// Picks how a run is shown: a live tree on a terminal, plain lines otherwise, NDJSON for
// machines; always a debug log; and a closing recap (tree and plain).
import type { Writable } from 'node:stream';
import type { EventSink, RunEvent } from '../engine/events.js';
import { createDebugLog } from './debug-log.js';
import { writePlain } from './plain-reporter.js';
import { TreeReporter } from './tree-reporter.js';

export interface ReporterOptions {
  readonly mode: 'tree' | 'plain' | 'json';
  readonly out: Writable;
  readonly err: Writable;
  readonly color: boolean;
  readonly debugLogPath: string;
}

export interface Reporter extends EventSink {
  /** A line for the debug log only (commands, timings). */
  debug(line: string): void;
  readonly debugLogPath: string;
  close(): Promise<void>;
}

export function createReporter(options: ReporterOptions): Reporter {
  const debugLog = createDebugLog(options.debugLogPath);
  const tree = options.mode === 'tree' ? new TreeReporter(options.out) : undefined;
  let failed = false;
  return {
    debugLogPath: debugLog.path,
    debug: (line) => debugLog.write(line),
    emit(event: RunEvent) {
      debugLog.write(JSON.stringify(event));
      if (event.type === 'host-failed' || event.type === 'host-unreachable') failed = true;
      if (options.mode === 'json') options.out.write(`${JSON.stringify(event)}\n`);
      else if (tree) tree.emit(event);
      else writePlain(options.out, event);
      if (event.type === 'run-end' && failed) {
        options.err.write(`kcluster: some hosts failed; full debug log: ${debugLog.path}\n`);
      }
    },
    async close() {
      await tree?.close();
      debugLog.close();
    },
  };
}
