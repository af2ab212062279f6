// The exit code a run ends with (documented in README.md, "Exit codes").
import { ExitCode } from '../cli/exit-codes.js';
import type { HostRecap } from './recap.js';

export function exitCodeFor(run: { hosts: readonly HostRecap[]; interrupted: boolean; check: boolean }): number {
  if (run.interrupted) return ExitCode.Interrupted;
  if (run.hosts.some((h) => h.failed > 0)) return ExitCode.HostsFailed;
  if (run.hosts.some((h) => h.unreachable)) return ExitCode.HostsUnreachable;
  if (run.check && run.hosts.some((h) => h.changed > 0)) return ExitCode.ChangesPending;
  return ExitCode.Success;
}
