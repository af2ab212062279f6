// Runs one stage: its output comes from the cache when a complete one exists (a `.done` marker);
// otherwise the recipe runs in its own process group, writing into `DIR.partial`, its whole
// output in a log file, and the folder is renamed into place only once the recipe succeeded. An
// interrupted or failed build never leaves a stage that looks complete.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildStage } from './build-plan.js';
import { recipePath } from './stage-key.js';

export interface StageOutput {
  readonly stage: BuildStage;
  readonly dir: string;
  readonly cached: boolean;
  /** Build time; for a cached stage, the time it took when it was built. */
  readonly seconds: number;
  readonly log: string;
}

export class StageFailedError extends Error {
  constructor(
    readonly stage: BuildStage,
    readonly log: string,
    readonly tail: string,
    reason: string,
  ) {
    super(`${stage.id}: ${reason}; the whole log is ${log}`);
    this.name = 'StageFailedError';
  }
}

export interface RunStageOptions {
  readonly root: string;
  readonly cacheDir: string;
  readonly key: string;
  /** Given to the recipe on top of this process's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
  /**
   * Fills the output folder instead of a recipe (release stages: downloads), writing its
   * progress to the log; throws to fail the stage.
   */
  readonly produce?: ((dir: string, log: (line: string) => void) => Promise<void>) | undefined;
}

export function stageDir(cacheDir: string, stage: BuildStage, key: string): string {
  return join(cacheDir, 'out', stage.name, `${stage.version}-${key}`);
}

function lastLines(file: string, count: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n');
  } catch {
    return '';
  }
}

/** Returns at once with a cached output; otherwise builds it (`onBuilding` is called first). */
export async function runStage(stage: BuildStage, options: RunStageOptions, onBuilding?: (log: string) => void): Promise<StageOutput> {
  const dir = stageDir(options.cacheDir, stage, options.key);
  const log = join(options.cacheDir, 'logs', `${stage.name}-${stage.version}.log`);
  if (existsSync(join(dir, '.done'))) {
    const seconds = Number(readFileSync(join(dir, '.seconds'), 'utf8').trim()) || 0;
    return { stage, dir, cached: true, seconds, log };
  }
  mkdirSync(join(options.cacheDir, 'logs'), { recursive: true });
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  onBuilding?.(log);
  const started = Date.now();
  const fd = openSync(log, 'w');
  const outcome = options.produce
    ? await produceInto(options.produce, partial, fd)
    : await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
        const child = spawn('bash', [recipePath(options.root, stage), stage.version, partial], {
          cwd: options.cacheDir,
          env: { ...process.env, ...options.env },
          stdio: ['ignore', fd, fd],
          detached: true,
        });
        const stop = (): void => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
          } catch {
            // already gone
          }
        };
        options.signal?.addEventListener('abort', stop, { once: true });
        child.on('error', (error) => resolve({ code: null, signal: null, error }));
        child.on('close', (code, signal) => {
          options.signal?.removeEventListener('abort', stop);
          resolve({ code, signal });
        });
      });
  closeSync(fd);
  if (outcome.code !== 0) {
    rmSync(partial, { recursive: true, force: true });
    const reason = outcome.error
      ? options.produce
        ? outcome.error.message
        : `the recipe could not start (${outcome.error.message})`
      : options.signal?.aborted
        ? 'stopped'
        : outcome.signal
          ? `the recipe was killed by ${outcome.signal}`
          : `the recipe failed (exit ${outcome.code})`;
    throw new StageFailedError(stage, log, lastLines(log, 25), reason);
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(join(partial, '.seconds'), `${seconds}\n`);
  writeFileSync(join(partial, '.done'), '');
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return { stage, dir, cached: false, seconds, log };
}

async function produceInto(
  produce: NonNullable<RunStageOptions['produce']>,
  dir: string,
  fd: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  const log = (line: string): void => void writeSync(fd, `${line}\n`);
  try {
    await produce(dir, log);
    return { code: 0, signal: null };
  } catch (error) {
    log(`error: ${(error as Error).message}`);
    return { code: 1, signal: null, error: error as Error };
  }
}
