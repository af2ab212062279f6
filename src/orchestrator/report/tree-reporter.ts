// The live view on a terminal: one listr2 tree per play, a line per host showing the role and
// task it is on, ending with its counts and what it changed. The engine runs the work; each
// listr task only waits for its host's part of the play to end, so listr2 just draws.
import { Listr, ListrLogger, ProcessOutput, type ListrTaskWrapper } from 'listr2';
import type { Writable } from 'node:stream';
import type { RunEvent, TaskStatus } from '../engine/events.js';
import { recapTable } from './recap-table.js';

interface HostView {
  wrapper?: ListrTaskWrapper<unknown, never, never>;
  /** What the host is doing now, shown until it ends. */
  current: string;
  /** What stays under the host once it ends: its changes and diffs. */
  changes: string[];
  /** The host's title once its part of the play ended ("cp1  ok=3 changed=1"). */
  title?: string;
  /** Why it stopped early (Ctrl-C, a fatal play): not a failure. */
  stopped?: string;
  /** Task results in this play (the recap has the run's totals). */
  counts: Record<TaskStatus, number>;
  finish: (error?: Error) => void;
}

function hostView(): { view: HostView; done: Promise<void> } {
  let finish!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  // Handled here so a host that fails before listr draws it is no unhandled rejection.
  done.catch(() => undefined);
  return { view: { current: 'waiting', changes: [], finish, counts: { ok: 0, changed: 0, skipped: 0, failed: 0 } }, done };
}

export class TreeReporter {
  private views = new Map<string, HostView>();
  /** Plays are drawn one after the other; the recap waits for the last one. */
  private drawing: Promise<void> = Promise.resolve();

  constructor(
    private readonly out: Writable,
    private readonly err: Writable,
    private readonly debugLogPath: string,
  ) {}

  emit(event: RunEvent): void {
    switch (event.type) {
      case 'play-start':
        this.startPlay(event.play, event.hosts);
        break;
      case 'host-start':
        this.show(event.host, 'connecting');
        break;
      case 'facts-gathered':
        this.show(event.host, `${event.role} › facts (${event.keys.length}, ${event.durationMs} ms)`);
        break;
      case 'task-start':
        this.show(event.host, `${event.role} › ${event.task}`);
        break;
      case 'task-progress':
        // The running task's line, with what it still waits for (a long wait says it every 20 s).
        this.show(event.host, `${event.role} › ${event.task}: ${event.message}`);
        break;
      case 'task-result': {
        const view = this.views.get(event.host);
        if (view) view.counts[event.status] += 1;
        if (event.status !== 'changed') break;
        view?.changes.push(`${event.check ? 'would change' : 'changed'}: ${event.role} › ${event.summary ?? event.task}`);
        if (event.diff) view?.changes.push(event.diff.trimEnd());
        break;
      }
      case 'handler-result':
        if (event.status === 'changed')
          this.views.get(event.host)?.changes.push(`${event.check ? 'would run' : 'ran'} handler: ${event.role} › ${event.handler}`);
        break;
      case 'host-end': {
        const view = this.views.get(event.host);
        if (!view) break;
        const { ok, changed, skipped, failed } = view.counts;
        const counts = `ok=${ok} changed=${changed}${skipped ? ` skipped=${skipped}` : ''}${failed ? ` failed=${failed}` : ''}`;
        view.title = `${event.host}  ${counts}${view.stopped ? `  (${view.stopped})` : ''}`;
        // Failed and stopped hosts were already finished, with their error as the last word.
        view.finish();
        break;
      }
      case 'host-stopped': {
        const view = this.views.get(event.host);
        if (view) view.stopped = event.reason.startsWith(`${event.host}: `) ? event.reason.slice(event.host.length + 2) : event.reason;
        break;
      }
      case 'host-failed':
      case 'host-unreachable':
        this.views
          .get(event.host)
          ?.finish(new Error(`${event.type === 'host-unreachable' ? 'UNREACHABLE ' : ''}${event.error} (debug log: ${this.debugLogPath})`));
        break;
      case 'play-end':
        // Hosts that never started (a stopped play, an interruption) end with the play.
        for (const view of this.views.values()) view.finish();
        if (event.aborted) this.after(`PLAY ${event.play} aborted: ${event.aborted}\n`);
        break;
      case 'run-end':
        this.after(`\n${recapTable(event.summary, this.debugLogPath)}\n`);
        break;
      default:
        break;
    }
  }

  private after(text: string): void {
    this.drawing = this.drawing.then(() => void this.out.write(text));
  }

  private show(host: string, text: string): void {
    const view = this.views.get(host);
    if (!view) return;
    view.current = text;
    if (view.wrapper) view.wrapper.output = text;
  }

  private startPlay(play: string, hosts: readonly string[]): void {
    const views = new Map<string, HostView>();
    const waits = new Map<string, Promise<void>>();
    for (const host of hosts) {
      const { view, done } = hostView();
      views.set(host, view);
      waits.set(host, done);
    }
    this.views = views;
    this.drawing = this.drawing.then(() => this.draw(play, hosts, views, waits));
  }

  private async draw(play: string, hosts: readonly string[], views: ReadonlyMap<string, HostView>, waits: ReadonlyMap<string, Promise<void>>): Promise<void> {
    // listr2 writes on the streams we give it and holds other writes to them while it draws.
    // Built only when the previous play's tree is done: a ProcessOutput remembers the write
    // method it finds, and must not remember the previous tree's hijacked one.
    const logger = new ListrLogger({ useIcons: true, processOutput: new ProcessOutput(this.out as NodeJS.WriteStream, this.err as NodeJS.WriteStream) });
    const listr = new Listr(
      [
        {
          title: `PLAY ${play}`,
          task: (_ctx, parent) =>
            parent.newListr(
              hosts.map((host) => ({
                title: host,
                task: async (_c: unknown, wrapper: ListrTaskWrapper<unknown, never, never>) => {
                  const view = views.get(host);
                  if (!view) return;
                  view.wrapper = wrapper;
                  wrapper.output = view.current;
                  try {
                    await waits.get(host);
                  } finally {
                    // Events may all have arrived before listr2 drew this host: apply the end state now.
                    if (view.title) wrapper.title = view.title;
                    wrapper.output = view.changes.join('\n');
                  }
                },
                rendererOptions: { persistentOutput: true, outputBar: 1 },
              })),
              { concurrent: true, exitOnError: false },
            ),
        },
      ],
      {
        concurrent: false,
        exitOnError: false,
        // Ctrl-C belongs to the CLI: it aborts the run, which ends every host view.
        registerSignalListeners: false,
        rendererOptions: { collapseSubtasks: false, collapseErrors: false, logger },
        fallbackRendererOptions: { logger },
      },
    );
    // A failed host rejects its listr task; the run's outcome is told by the recap.
    await listr.run().catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const view of this.views.values()) view.finish();
    await this.drawing;
  }
}
