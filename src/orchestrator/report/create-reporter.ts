// Picks how a run is shown: a live tree on a terminal, plain lines otherwise, NDJSON for
// machines; always a debug log with every event and command; a closing recap (tree, plain).
import type { Writable } from 'node:stream';
import type { EventSink, RunEvent } from '../engine/events.js';
import { createDebugLog } from './debug-log.js';
import { failureCollector } from './failure-lines.js';
import { plainReporter } from './plain-reporter.js';
import { tickWriter } from './tick-writer.js';

export interface ReporterOptions {
  /** The CLI picks tree on a TTY (CI unset), plain otherwise, json for --output json. */
  readonly mode: 'tree' | 'plain' | 'json';
  readonly out: Writable;
  readonly err: Writable;
  /** Off when NO_COLOR is set or out is not a TTY. */
  readonly color: boolean;
  readonly debugLogPath: string;
}

export interface Reporter extends EventSink {
  /** A line for the debug log only (commands, timings); never pass secrets. */
  debug(line: string): void;
  readonly debugLogPath: string;
  /** Waits for the live view to finish drawing, then closes the debug log. */
  close(): Promise<void>;
}

async function view(options: ReporterOptions): Promise<EventSink & { close?: () => Promise<void> }> {
  switch (options.mode) {
    case 'json': {
      // stdout carries the NDJSON stream and nothing else; a failed run's failures and its
      // log path go to stderr.
      const out = tickWriter(options.out);
      const failures = failureCollector();
      return {
        emit(event) {
          out.write(`${JSON.stringify(event)}\n`);
          failures.add(event);
          if (event.type === 'run-end' && event.summary.exitCode !== 0 && event.summary.exitCode !== 3) {
            out.flush();
            options.err.write(failures.lines.map((f) => `kcluster: ${f}\n`).join('') + `kcluster: debug log: ${options.debugLogPath}\n`);
          }
        },
        close: async () => out.flush(),
      };
    }
    case 'tree': {
      // listr2 is loaded only for the live view (about 30 ms of start-up otherwise).
      const { TreeReporter } = await import('./tree-reporter.js');
      return new TreeReporter(options.out, options.err, options.debugLogPath);
    }
    case 'plain':
      return plainReporter(options.out, options.debugLogPath, options.color);
  }
}

export async function createReporter(options: ReporterOptions): Promise<Reporter> {
  const shown = await view(options);
  const debugLog = createDebugLog(options.debugLogPath);
  return {
    debugLogPath: debugLog.path,
    debug: (line) => debugLog.write(line),
    emit(event: RunEvent) {
      debugLog.write(`event ${JSON.stringify(event)}`);
      shown.emit(event);
    },
    async close() {
      try {
        await shown.close?.();
      } finally {
        debugLog.close();
      }
    },
  };
}
