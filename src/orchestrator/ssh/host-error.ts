// An error about one host. Its message is "<host>: <detail>"; code that reports per host
// (the engine, the CLI's tables) reads `detail` instead of cutting the host name off the text.

export class HostError extends Error {
  #detail: string;

  constructor(
    readonly host: string,
    detail: string,
  ) {
    super(`${host}: ${detail}`);
    this.#detail = detail;
    this.name = 'HostError';
  }

  /** The message without the host name. */
  get detail(): string {
    return this.#detail;
  }

  /** For subclasses that build their text after super(): keeps message and detail in step. */
  protected setDetail(detail: string): void {
    this.#detail = detail;
    this.message = `${this.host}: ${detail}`;
  }
}

/** What to say about `host` for any error: the detail of a HostError about it, else the message. */
export function detailFor(host: string, error: unknown): string {
  if (error instanceof HostError && error.host === host) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
