// A play-wide "stop starting work" flag (anyErrorsFatal, maxFailPercentage): hosts of the
// play finish the task they are on, then stop. The first reason given is the one reported.
export class PlayStop {
  private why: string | undefined;

  get reason(): string | undefined {
    return this.why;
  }

  request(reason: string): void {
    this.why ??= reason;
  }
}
