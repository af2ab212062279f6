// The live view on a terminal: one listr2 tree per play, a line per host showing the task it
// is on, ending with its counts. The engine runs the work; listr2 only draws it.
import { Listr, type ListrTaskWrapper } from 'listr2';
import type { Writable } from 'node:stream';
import type { RunEvent } from '../engine/events.js';
import { recapTable } from './recap-table.js';

interface HostView {
  wrapper?: ListrTaskWrapper<unknown, never, never>;
  current: string;
  lines: string[];
  finish: (error?: Error) => void;
  done: Promise<void>;
}

function hostView(): HostView {
  let finish!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error ? reject(error) : resolve());
  });
  done.catch(() => undefined);
  return { current: 'connecting', lines: [], finish, done };
}

export class TreeReporter {
  private views = new Map<string, HostView>();
  private drawing: Promise<void> = Promise.resolve();

  constructor(private readonly out: Writable) {}

  emit(event: RunEvent): void {
    switch (event.type) {
      case 'play-start':
        this.startPlay(event.play, event.hosts);
        break;
      case 'task-start':
        this.update(event.host, `${event.role} › ${event.task}`);
        break;
      case 'task-result':
        if (event.status === 'changed') {
          const view = this.views.get(event.host);
          view?.lines.push(`${event.check ? 'would change' : 'changed'}: ${event.summary ?? event.task}`);
          if (event.diff) view?.lines.push(event.diff.trimEnd());
        }
        break;
      case 'host-end': {
        const view = this.views.get(event.host);
        if (!view) break;
        const counts = `ok=${event.ok} changed=${event.changed}${event.failed ? ` failed=${event.failed}` : ''}`;
        if (view.wrapper) view.wrapper.title = `${event.host}  ${counts}`;
        // What stays under the host: its changes (and diffs), not the last task it checked.
        if (view.wrapper) view.wrapper.output = view.lines.join('\n');
        break;
      }
      case 'host-failed':
      case 'host-unreachable':
        this.views.get(event.host)?.finish(new Error(`${event.type === 'host-unreachable' ? 'UNREACHABLE: ' : ''}${event.error}`));
        break;
      case 'play-end':
        for (const view of this.views.values()) view.finish();
        break;
      case 'run-end':
        this.drawing = this.drawing.then(() => {
          this.out.write(`\n${recapTable(event.summary)}\n`);
        });
        break;
      default:
        break;
    }
  }

  private update(host: string, text: string): void {
    const view = this.views.get(host);
    if (!view) return;
    view.current = text;
    if (view.wrapper) view.wrapper.output = text;
  }

  private startPlay(play: string, hosts: readonly string[]): void {
    const views = new Map(hosts.map((h) => [h, hostView()]));
    this.views = views;
    const listr = new Listr(
      [
        {
          title: `PLAY ${play}`,
          task: (_ctx, parent) =>
            parent.newListr(
              hosts.map((host) => ({
                title: host,
                task: async (_c: unknown, wrapper: ListrTaskWrapper<unknown, never, never>) => {
                  const view = views.get(host)!;
                  view.wrapper = wrapper;
                  wrapper.output = view.current;
                  await view.done;
                },
                rendererOptions: { persistentOutput: true },
              })),
              { concurrent: true, exitOnError: false },
            ),
        },
      ],
      { concurrent: false, exitOnError: false, registerSignalListeners: false, rendererOptions: { collapseSubtasks: false } },
    );
    this.drawing = this.drawing.then(() => listr.run().then(() => undefined, () => undefined));
  }

  async close(): Promise<void> {
    for (const view of this.views.values()) view.finish();
    await this.drawing;
  }
}
