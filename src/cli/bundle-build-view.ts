// How `kcluster bundle build` shows its progress. On a terminal, a live listr2 tree: one line per
// stage with what it is doing (cached, building with its elapsed time and log, built in N s).
// Elsewhere (CI, a pipe), one plain line per step on stderr. stdout keeps the bundle's path.
import { Listr, ListrLogger, ProcessOutput, type ListrTaskWrapper } from 'listr2';
import type { Writable } from 'node:stream';
import type { BuildEvent } from '../kubernetes/artifacts/build/build-bundle.js';
import type { BuildStage } from '../kubernetes/artifacts/build/build-plan.js';

export interface BuildView {
  emit(event: BuildEvent): void;
  close(): Promise<void>;
}

const label = (stage: BuildStage): string => `${stage.name} ${stage.version}${stage.origin === 'release' ? ' (release download)' : ''}`;

export function plainBuildView(err: Writable): BuildView {
  const line = (text: string): void => void err.write(`bundle build: ${text}\n`);
  return {
    emit(event) {
      switch (event.type) {
        case 'plan':
          line(`${event.stages.length} stages: ${event.stages.map((s) => s.id).join(', ')}`);
          break;
        case 'stage-cached':
          line(`${label(event.output.stage)}: cached (${event.output.dir})`);
          break;
        case 'stage-building':
          line(`${label(event.stage)}: building (log: ${event.log})`);
          break;
        case 'stage-built':
          line(`${label(event.output.stage)}: built in ${event.output.seconds} s`);
          break;
        case 'stage-failed':
          err.write(`${event.error.tail}\n`);
          line(`${event.error.message}`);
          break;
        case 'assembling':
          line('assembling the bundle and its images');
          break;
        case 'assembled':
          line(
            `bundle ${event.bundle.cached ? 'cached' : 'ready'}: ${event.bundle.dir} (${event.bundle.artifacts} artifacts, ${Math.round(event.bundle.bytes / 1e6)} MB)`,
          );
          break;
      }
    },
    close: async () => undefined,
  };
}

interface StageLine {
  wrapper?: ListrTaskWrapper<unknown, never, never>;
  title: string;
  output: string;
  startedAt?: number;
  finish: (error?: Error) => void;
  done: Promise<void>;
}

function stageLine(title: string): StageLine {
  let finish!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
  done.catch(() => undefined);
  return { title, output: '', finish, done };
}

export function treeBuildView(out: Writable, err: Writable): BuildView {
  const lines = new Map<string, StageLine>();
  const assembly = stageLine('assemble the bundle');
  let drawing: Promise<void> = Promise.resolve();
  const show = (line: StageLine): void => {
    if (line.wrapper) {
      line.wrapper.title = line.title;
      line.wrapper.output = line.output;
    }
  };
  // Elapsed time of the stage that is building, once a second.
  const ticker = setInterval(() => {
    for (const line of [...lines.values(), assembly]) {
      if (line.startedAt === undefined) continue;
      line.title = line.title.replace(/( \(\d+ s\))?$/, ` (${Math.round((Date.now() - line.startedAt) / 1000)} s)`);
      show(line);
    }
  }, 1000);
  ticker.unref();
  const draw = async (stages: readonly BuildStage[]): Promise<void> => {
    const logger = new ListrLogger({ useIcons: true, processOutput: new ProcessOutput(out as NodeJS.WriteStream, err as NodeJS.WriteStream) });
    const task = (line: StageLine) => async (_c: unknown, wrapper: ListrTaskWrapper<unknown, never, never>) => {
      line.wrapper = wrapper;
      show(line);
      try {
        await line.done;
      } finally {
        show(line);
      }
    };
    const listr = new Listr(
      [
        {
          title: 'kcluster bundle build',
          task: (_ctx, parent) =>
            parent.newListr(
              [...stages.map((stage) => ({ line: lines.get(stage.id)!, title: label(stage) })), { line: assembly, title: assembly.title }].map(
                ({ line, title }) => ({
                  title,
                  task: task(line),
                  rendererOptions: { persistentOutput: true },
                }),
              ),
              { concurrent: true, exitOnError: false },
            ),
        },
      ],
      {
        concurrent: true,
        exitOnError: false,
        registerSignalListeners: false,
        rendererOptions: { collapseSubtasks: false, collapseErrors: false, logger },
        fallbackRendererOptions: { logger },
      },
    );
    await listr.run().catch(() => undefined);
  };
  return {
    emit(event) {
      switch (event.type) {
        case 'plan':
          for (const stage of event.stages) lines.set(stage.id, stageLine(`${label(stage)}: waiting`));
          drawing = draw(event.stages);
          break;
        case 'stage-cached': {
          const line = lines.get(event.output.stage.id)!;
          line.title = `${label(event.output.stage)}: cached (built in ${event.output.seconds} s)`;
          line.output = event.output.dir;
          line.finish();
          break;
        }
        case 'stage-building': {
          const line = lines.get(event.stage.id)!;
          line.startedAt = Date.now();
          line.title = `${label(event.stage)}: building`;
          line.output = `log: ${event.log}`;
          show(line);
          break;
        }
        case 'stage-built': {
          const line = lines.get(event.output.stage.id)!;
          delete line.startedAt;
          line.title = `${label(event.output.stage)}: built in ${event.output.seconds} s`;
          line.output = event.output.dir;
          line.finish();
          break;
        }
        case 'stage-failed': {
          const line = lines.get(event.error.stage.id)!;
          delete line.startedAt;
          line.title = `${label(event.error.stage)}: failed`;
          line.output = `${event.error.tail}\nlog: ${event.error.log}`;
          line.finish(new Error(event.error.message));
          break;
        }
        case 'assembling':
          assembly.startedAt = Date.now();
          assembly.title = 'assemble the bundle';
          show(assembly);
          break;
        case 'assembled':
          delete assembly.startedAt;
          assembly.title = `bundle ${event.bundle.cached ? 'cached' : `assembled in ${event.seconds.toFixed(1)} s`}: ${event.bundle.artifacts} artifacts, ${Math.round(event.bundle.bytes / 1e6)} MB`;
          assembly.output = event.bundle.dir;
          assembly.finish();
          break;
      }
    },
    async close() {
      clearInterval(ticker);
      for (const line of [...lines.values(), assembly]) {
        if (line.title.endsWith(': waiting')) line.title = line.title.replace(/: waiting$/, ': not built');
        line.finish(line.startedAt !== undefined ? new Error('stopped') : undefined);
      }
      await drawing;
    },
  };
}
