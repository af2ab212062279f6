// Exit codes of every kcluster command (documented in docs/users/exit-codes.md), and the one a
// run ends with. They live in the engine, the lowest layer that decides one; the CLI re-exports.
import type { HostRecap } from './recap.js';
export const ExitCode = {
  /** Everything asked was done (or already in place). */
  Success: 0,
  /** A bug in kcluster: an unexpected error (the message says where the debug log is). */
  Internal: 1,
  /** Bad input: inventory errors, unknown flags, missing files. Nothing was touched. */
  InvalidInput: 2,
  /** `--check`: the run would change something (nothing was changed). */
  ChangesPending: 3,
  /** One or more hosts failed. */
  HostsFailed: 4,
  /** One or more hosts were unreachable (and none failed otherwise). */
  HostsUnreachable: 5,
  /** `kcluster bundle build`: a recipe failed on this machine (the message names its log). */
  BuildFailed: 6,
  /** The run's changes to the state could not be published to the state store (cluster.state): they are in the state folder. */
  StateNotPublished: 7,
  /** Interrupted by SIGINT/SIGTERM. */
  Interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export function exitCodeFor(run: { hosts: readonly HostRecap[]; interrupted: boolean; check: boolean }): number {
  if (run.interrupted) return ExitCode.Interrupted;
  if (run.hosts.some((h) => h.failed > 0)) return ExitCode.HostsFailed;
  if (run.hosts.some((h) => h.unreachable)) return ExitCode.HostsUnreachable;
  if (run.check && run.hosts.some((h) => h.changed > 0)) return ExitCode.ChangesPending;
  return ExitCode.Success;
}
