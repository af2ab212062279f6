// Per-host counters of a run: what the closing recap and the JSON report show.

export interface HostRecap {
  readonly host: string;
  ok: number;
  changed: number;
  skipped: number;
  failed: number;
  unreachable: boolean;
  roundTrips: number;
  bytesSent: number;
  bytesReceived: number;
  durationMs: number;
  error?: string;
}

export interface RunSummary {
  readonly playbook: string;
  readonly hosts: HostRecap[];
  readonly exitCode: number;
  readonly durationMs: number;
  readonly interrupted: boolean;
  readonly check: boolean;
  /** Check mode found something to change. */
  readonly changesPending: boolean;
}

export function emptyRecap(host: string): HostRecap {
  return { host, ok: 0, changed: 0, skipped: 0, failed: 0, unreachable: false, roundTrips: 0, bytesSent: 0, bytesReceived: 0, durationMs: 0 };
}
