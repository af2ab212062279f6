// A command kcluster stopped itself (timeout or cancel), told apart from one that exited
// non-zero: "exited 124" would send a person looking in the wrong place.
import { abbreviate, RemoteCommandError, type ExecResult } from './connection.js';

export class CommandStoppedError extends RemoteCommandError {
  constructor(
    host: string,
    command: string,
    readonly reason: string,
    label?: string,
    result: ExecResult = { code: 124, stdout: '', stderr: '', durationMs: 0 },
    /** Stopped because it ran past its own time limit (not cancelled, not a local error). */
    readonly timedOut = false,
  ) {
    super(host, command, result, label);
    const shown = abbreviate(command);
    const tail = result.stderr.trim().split('\n').slice(-8).join('\n');
    this.setDetail(`command${label ? ` (${label})` : ''} ${reason}: ${shown}${tail ? `\n${tail}` : ''}`);
    this.name = 'CommandStoppedError';
  }
}
