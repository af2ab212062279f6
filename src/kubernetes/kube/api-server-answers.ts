// Before a day-2 command works through one control plane's API server: wait until it answers,
// for a bounded time, saying what is awaited. Right after that control plane rebooted (or a
// run was interrupted while its static pods rolled) the API server is seconds away; a command
// that failed at once told the operator to "run the same command again", which failed the same.
import { InputError } from '../../orchestrator/engine/input-error.js';
import { pollUntil } from '../../orchestrator/engine/poll-until.js';
import type { ApiClient } from './api-client.js';

export interface ApiAnswerWait {
  readonly waitMs: number;
  /** Where to say what is still awaited (a CLI's stderr). */
  readonly say?: (line: string) => void;
  /** Names the command in the refusal ("remove-node works through it"). */
  readonly command: string;
  /** Ends the wait early (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** Asked again every second: an answer, or why there was none (an error does not end the wait). */
const ASK_EVERY_MS = 1_000;

export async function apiServerAnswers(api: ApiClient, server: string, wait: ApiAnswerWait): Promise<void> {
  let tries = 0;
  const outcome = await pollUntil<string | undefined>({
    timeoutMs: wait.waitMs,
    intervalMs: ASK_EVERY_MS,
    signal: wait.signal ?? new AbortController().signal,
    probe: async () => {
      tries += 1;
      try {
        await api.get('/version');
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
    done: (why) => why === undefined,
    ...(wait.say !== undefined
      ? { progress: { describe: (why) => `the API server at ${server} to answer (${why ?? 'no answer yet'})`, report: wait.say } }
      : {}),
  });
  if (outcome.reached) return;
  throw new InputError(
    `the API server at ${server} did not answer within ${Math.round(wait.waitMs / 1000)} s (${tries} tries; last: ${outcome.last ?? 'no answer'}): ${wait.command} works through it; ` +
      'check that control plane (kcluster status, journalctl -u kubelet on it) and run the command again',
  );
}
