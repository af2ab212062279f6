// `kcluster report timeline LOG [--svg FILE] [--min-task SECONDS] [--run N] [-o text|json]`: where a run's
// time went, per play, host, role and long task, with the critical path marked, from the
// debug log kcluster writes for every run or from the NDJSON stream of `-o json`.
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { WHAT_TO_GIVE } from '../../orchestrator/report/timeline/read-events.js';
import { timelineReport } from '../../orchestrator/report/timeline/timeline-report.js';

interface TimelineOptions {
  readonly svg?: string;
  readonly minTask: string;
  readonly run?: string;
  readonly output: 'text' | 'json';
}

function positive(flag: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new InputError(`${flag} must be a ${integer ? 'whole number of 1 or more' : 'number of seconds above 0'} (got ${JSON.stringify(value)})`);
  }
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readLog(cli: CliContext, log: string): Promise<string> {
  // `kcluster apply -o json | kcluster report timeline -`
  if (log === '-') return readStdin();
  try {
    return await readFile(resolve(cli.cwd, log), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a folder: give one of its *.log files (the newest is the last run)'
          : (error as Error).message;
    throw new InputError(`${log}: cannot read it: ${why}; ${WHAT_TO_GIVE}`);
  }
}

async function timeline(cli: CliContext, log: string, options: TimelineOptions): Promise<void> {
  try {
    const minTaskMs = positive('--min-task', options.minTask, false) * 1000;
    const run = options.run === undefined ? undefined : positive('--run', options.run, true);
    const report = timelineReport(await readLog(cli, log), log === '-' ? '<stdin>' : log, {
      minTaskMs,
      svg: options.svg !== undefined,
      ...(run !== undefined ? { run } : {}),
    });
    for (const note of report.notes) cli.stderr.write(`kcluster: ${note}\n`);
    if (options.output === 'json') {
      // Times in ms from the run's start (startedAt: epoch ms), for scripts and benchmarks.
      const { timeline, criticalPath, phases } = report;
      cli.stdout.write(`${JSON.stringify({ ...timeline, criticalPath, phases }, null, 2)}\n`);
    } else {
      cli.stdout.write(report.text);
    }
    if (options.svg !== undefined && report.svg !== undefined) {
      try {
        await writeFile(resolve(cli.cwd, options.svg), report.svg);
      } catch (error) {
        throw new InputError(`--svg ${options.svg}: cannot write it: ${(error as Error).message}`);
      }
      cli.stderr.write(`kcluster: wrote ${options.svg}\n`);
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
  }
}

export function registerReportCommand(program: Command, cli: CliContext): void {
  const report = program.command('report').description("reports from a run's log");
  report
    .command('timeline')
    .description('where the time of a run went: per play, host, role and long task, with the critical path marked (text; SVG with --svg)')
    .argument('<log>', 'the debug log of a run (<stateDir>/logs/*.log) or the output of `-o json` (- reads it from stdin)')
    .option('--svg <file>', 'also write a Gantt chart of the run as SVG')
    .option('--min-task <seconds>', 'show tasks that took at least this long', '0.5')
    .addOption(
      new Option('-o, --output <format>', 'text (a table) or json (the timeline, its critical path and phases; times in ms)')
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('--run <n>', 'the run to show when the file holds several (1 is the first; default: the last)')
    .action((log: string, options: TimelineOptions) => timeline(cli, log, options));
}
