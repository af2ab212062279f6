// After a fault: what `kcluster status -o json` names as next is run until status says the last
// run completed, at most MAX_RESUMES times. A killed command may have died before its journal
// existed (status then shows the run before it): that command itself is run again, and said so.
// Status naming no command while the last run did not complete is the failure the soak reports.
import { kcluster } from '../integration/support/test-lab.js';
import { runKcluster, tailOf } from './kcluster-run.js';
import { parseNextCommand } from './status-next.js';

export const MAX_RESUMES = 3;

interface StatusLast {
  readonly started: string;
  readonly result: string;
  readonly next?: string;
}

export interface ResumeOutcome {
  /** Each command run to resume, as typed, with its exit code. */
  readonly commands: string[];
  /** Why it did not finish, when it did not. */
  readonly problem?: string;
}

async function lastRun(inventory: string): Promise<StatusLast> {
  const r = await kcluster(['status', '-i', inventory, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kcluster status exited ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { last: StatusLast }).last;
}

/** `since`: when the faulted command started (ms); `original`: its arguments after `kcluster`. */
export async function resumeFromStatus(inventory: string, since: number, original: readonly string[]): Promise<ResumeOutcome> {
  const commands: string[] = [];
  for (let attempt = 0; attempt <= MAX_RESUMES; attempt++) {
    let last: StatusLast;
    try {
      last = await lastRun(inventory);
    } catch (error) {
      return { commands, problem: (error as Error).message };
    }
    const noJournal = Date.parse(last.started) < since;
    if (!noJournal && last.result === 'completed') return { commands };
    if (attempt === MAX_RESUMES) return { commands, problem: `status still says "${last.result}" after ${MAX_RESUMES} resumes` };
    let args: readonly string[];
    if (noJournal) {
      args = original;
    } else {
      if (last.next === undefined) return { commands, problem: `status says "${last.result}" and names no command to run next` };
      const next = parseNextCommand(last.next);
      if (!next) return { commands, problem: `status names "${last.next}", not a kcluster command the soak can run` };
      if (next.cwd !== undefined) return { commands, problem: `status names a command to run in ${next.cwd}, not where it ran: "${last.next}"` };
      args = next.args;
    }
    const run = await runKcluster(args);
    // A resume that fails is retried, but what it said is kept: it is a finding of its own.
    const said =
      run.code === 0
        ? ''
        : ` (${
            run.err
              .trim()
              .split('\n')
              .filter((l) => l.startsWith('kcluster:'))
              .slice(-2)
              .join(' ')
              .slice(0, 400) || 'no kcluster: line on stderr'
          })`;
    commands.push(`${noJournal ? '(no journal; the command again) ' : ''}kcluster ${run.args.join(' ')} -> ${run.code}${said}`);
    if (run.timedOut) return { commands, problem: `the resume command did not end within its limit: ${tailOf(run)}` };
  }
  return { commands, problem: 'unreachable' };
}
