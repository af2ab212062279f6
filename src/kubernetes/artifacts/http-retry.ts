// Mirrors and CDNs drop a connection now and then (a reset under load, a 503 while they
// redeploy): one such hiccup must not fail a whole download. A transient failure is tried again
// a few times with growing pauses, each retry said; a definite answer (a 404, a checksum that
// does not match, Ctrl-C) is final at once, because asking again cannot change it.
import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactError } from './artifact.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly attempts: number;
  /** Pause before the first retry, doubled before each next one. */
  readonly firstDelayMs: number;
}

/** Pauses of about 0.5, 1 and 2 s: long enough for a server to recover from a burst. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, firstDelayMs: 500 };

export interface RetryOptions {
  readonly signal?: AbortSignal | undefined;
  readonly retry?: RetryPolicy | undefined;
  /** Told of each retry, as one line: "GET <url>: read ECONNRESET; attempt 2 of 4 in 0.5 s". */
  readonly onRetry?: ((line: string) => void) | undefined;
}

/** A failure the next attempt may not meet; its message is the reason alone (no URL). */
export class TransientHttpError extends ArtifactError {
  constructor(reason: string) {
    super(reason);
    this.name = 'TransientHttpError';
  }
}

const TRANSIENT_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** A dropped or refused connection, or a timeout (Node names "socket hang up" ECONNRESET). */
export function isTransientNetworkError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && TRANSIENT_CODES.has(code)) || error.message === 'socket hang up';
}

/** Overloaded or failing for now (429, 5xx); any other status is the server's real answer. */
export const isTransientStatus = (status: number): boolean => status === 429 || (status >= 500 && status <= 599);

// Up to a tenth more, so that parallel downloads cut by the same hiccup do not retry in step.
const pauseBefore = (policy: RetryPolicy, retry: number): number => Math.round(policy.firstDelayMs * 2 ** (retry - 1) * (1 + Math.random() * 0.1));

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/** Runs `attempt` until it succeeds, fails for good, is aborted, or the attempts run out. */
export async function withRetries<T>(label: string, attempt: () => Promise<T>, options: RetryOptions): Promise<T> {
  const policy = options.retry ?? DEFAULT_RETRY;
  for (let made = 1; ; made++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof TransientHttpError) || options.signal?.aborted === true) throw error;
      if (made >= policy.attempts) {
        throw new ArtifactError(
          `${label} failed ${made} times, the last with: ${error.message}; the server or the network keeps failing: check that the mirror (cluster.artifacts.mirrors) is up and reachable, then run again`,
        );
      }
      const pause = pauseBefore(policy, made);
      options.onRetry?.(`${label}: ${error.message}; attempt ${made + 1} of ${policy.attempts} in ${seconds(pause)}`);
      await sleep(pause, undefined, options.signal ? { signal: options.signal } : {});
    }
  }
}
