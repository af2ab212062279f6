// A command kcluster stopped itself (timeout or cancel), told apart from one that exited
// non-zero: "exited 124" would send a person looking in the wrong place.
import { RemoteCommandError, type ExecResult } from './connection.js';

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
    const oneLine = command.replace(/\s+/g, ' ').trim();
    const shown = oneLine.length > 200 ? `${oneLine.slice(0, 197)}...` : oneLine;
    const tail = result.stderr.trim().split('\n').slice(-8).join('\n');
    this.message = `${host}: command${label ? ` (${label})` : ''} ${reason}: ${shown}${tail ? `\n${tail}` : ''}`;
    this.name = 'CommandStoppedError';
  }
}
