// The one door to a host. Everything that reads or changes a machine goes through a
// Connection, so that every round trip and byte is counted and every command is quoted.
import { HostError } from './host-error.js';
import type { ShellCommand } from './quote.js';

export interface ExecOptions {
  /** Fed on the command's stdin (secrets travel here, never in argv). */
  readonly stdin?: string | Buffer;
  /** A local file streamed to the command's stdin after `stdin` (large uploads: never buffered whole). */
  readonly stdinFile?: string;
  /** Run as root through the host's become method (sudo); no-op when already root. */
  readonly become?: boolean;
  /** Abort the command (and fail) after this long. */
  readonly timeoutMs?: number;
  /** Abort the command (and fail) when this fires, e.g. on Ctrl-C. */
  readonly signal?: AbortSignal;
  /** A short label for logs and counters, e.g. "facts:demo" or "task:write motd". */
  readonly label?: string;
}

export interface ExecResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
}

export interface WriteFileOptions {
  /** Octal mode such as 0o644. */
  readonly mode: number;
  readonly owner?: string;
  readonly group?: string;
  readonly become?: boolean;
  /** Create the parent directory (mode 0755) when missing. */
  readonly mkdirParents?: boolean;
  readonly label?: string;
  /** Stops the transfer (Ctrl-C): the host then keeps the old file, never a part of the new one. */
  readonly signal?: AbortSignal;
}

export interface UploadOptions extends WriteFileOptions {
  /** The local file's sha256 (lower-case hex), known to the caller: the host refuses other bytes. */
  readonly sha256: string;
}

export interface DownloadOptions {
  /** Read the remote file as root (it is staged for the login user first when that is not root). */
  readonly become?: boolean;
  readonly label?: string;
}

/** What arrived on the controller: its size and sha256, for the caller to compare with the host's. */
export interface DownloadedFile {
  readonly bytes: number;
  readonly sha256: string;
}

export interface ConnectionStats {
  /** Commands and transfers started on this host (each costs one network round trip or more). */
  roundTrips: number;
  bytesSent: number;
  bytesReceived: number;
}

export interface Connection {
  /** Inventory name of the host, used to prefix every message. */
  readonly host: string;
  readonly stats: ConnectionStats;
  exec(command: ShellCommand, options?: ExecOptions): Promise<ExecResult>;
  /**
   * Write a file atomically and only whole: a temp file in the same directory gets the
   * content; the host checks its size and sha256 against what was sent, sets mode and owner,
   * flushes it, then renames it over the target. Content travels on stdin.
   */
  writeFile(path: string, content: string | Buffer, options: WriteFileOptions): Promise<void>;
  /** Like writeFile, with the content streamed from a local file (binaries, image archives). */
  uploadFile(localPath: string, path: string, options: UploadOptions): Promise<void>;
  /**
   * Copy a remote file to a local path, streamed to disk (never whole in memory): written next
   * to the target and renamed into place once complete. Large files (etcd snapshots) go this way.
   */
  downloadFile(path: string, localPath: string, options?: DownloadOptions): Promise<DownloadedFile>;
  /** Ends the connection; calling it again waits for the same end. */
  close(): Promise<void>;
}

/** A command that ran but exited non-zero, with what a person needs to act on it. */
export class RemoteCommandError extends HostError {
  constructor(
    host: string,
    readonly command: string,
    readonly result: ExecResult,
    readonly label?: string,
  ) {
    const tail = result.stderr.trim().split('\n').slice(-8).join('\n');
    super(host, `command${label ? ` (${label})` : ''} exited ${result.code}: ${abbreviate(command)}` + (tail ? `\n${tail}` : ''));
    this.name = 'RemoteCommandError';
  }
}

/** The host could not be reached or the connection broke; `reason` says how. */
export class UnreachableError extends HostError {
  constructor(
    host: string,
    readonly reason: string,
  ) {
    super(host, `unreachable: ${reason}`);
    this.name = 'UnreachableError';
  }
}

/** A command on one line, cut to `max` characters with "..." (messages name commands, never whole scripts). */
export function abbreviate(command: string, max = 200): string {
  const oneLine = command.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 3)}...` : oneLine;
}

/** Throw RemoteCommandError unless the command exited 0. */
export async function execChecked(connection: Connection, command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
  const result = await connection.exec(command, options);
  if (result.code !== 0) throw new RemoteCommandError(connection.host, command.text, result, options.label);
  return result;
}
