// Before a day-2 command works through one control plane's API server: wait until it answers,
// for a bounded time, saying what is awaited. Right after that control plane rebooted (or a
// run was interrupted while its static pods rolled) the API server is seconds away; a command
// that failed at once told the operator to "run the same command again", which failed the same.
import { InputError } from '../../orchestrator/engine/input-error.js';
import { waitProgressReporter } from '../../orchestrator/engine/wait-progress.js';
import type { ApiClient } from './api-client.js';

export interface ApiAnswerWait {
  readonly waitMs: number;
  /** Where to say what is still awaited (a CLI's stderr). */
  readonly say?: (line: string) => void;
  /** Names the command in the refusal ("remove-node works through it"). */
  readonly command: string;
}

export async function apiServerAnswers(api: ApiClient, server: string, wait: ApiAnswerWait): Promise<void> {
  const started = Date.now();
  const progress =
    wait.say === undefined
      ? undefined
      : waitProgressReporter<string>(
          { describe: (e) => `the API server at ${server} to answer (${e ?? 'no answer yet'})`, report: wait.say },
          started,
          wait.waitMs,
        );
  for (let attempt = 1; ; attempt++) {
    try {
      await api.get('/version');
      return;
    } catch (error) {
      const last = (error as Error).message;
      if (Date.now() - started >= wait.waitMs)
        throw new InputError(
          `the API server at ${server} did not answer within ${Math.round(wait.waitMs / 1000)} s (${attempt} tries; last: ${last}): ${wait.command} works through it; ` +
            'check that control plane (kcluster status, journalctl -u kubelet on it) and run the command again',
        );
      progress?.(Date.now(), last);
      await new Promise((r) => setTimeout(r, Math.min(1_000 * attempt, 3_000, Math.max(0, wait.waitMs - (Date.now() - started)))));
    }
  }
}
