// A Connection over one ssh2 Client for the whole run: every command on its own channel
// (several at once, up to the server's session limit), quoted, counted, and run as root
// through the become mode when asked.
import { HostError } from './host-error.js';
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import type { Client, ClientChannel } from 'ssh2';
import type { Connection, ConnectionStats, DownloadedFile, DownloadOptions, ExecOptions, ExecResult, UploadOptions, WriteFileOptions } from './connection.js';
import { abbreviate, RemoteCommandError, UnreachableError } from './connection.js';
import { wrapBecome, type BecomeMode } from './become.js';
import { sh, type ShellCommand } from './quote.js';
import { sftpDownload } from './sftp-download.js';
import { atomicWriteCommand } from './atomic-write.js';
import { ChannelSlots, DEFAULT_CHANNEL_SLOTS } from './channel-slots.js';
import { CommandStoppedError } from './command-stopped-error.js';
import { endClient, untilClosed } from './end-client.js';
import { GUARD_GOODBYE, newSessionToken, sessionGuardScript, stopCommandScript } from './session-guard.js';

/** How long a stopped command may keep its channel slot before we stop waiting for it. */
const STOPPED_CHANNEL_GRACE_MS = 10_000;

/**
 * OpenSSH frees a session a moment after it sends the channel's close, which is when a slot is
 * given back here: a new channel opened in that moment can find the server at its MaxSessions
 * (the guard session counts too) and be refused with "open failed". Tried again, a little later
 * each time, for about 3 s in all; a server that keeps refusing is then reported.
 */
const REFUSED_CHANNEL_TRIES = 8;
const REFUSED_CHANNEL_PAUSE_MS = 100;

/**
 * Ask the server to SIGKILL the command's process. OpenSSH honours "signal" requests only for
 * non-root logins (it says "session signalling requires privilege separation" for root), where
 * the signal reaches sudo, which passes it on to the command. ssh2's
 * public `channel.signal()` refuses once our stdin is ended, which is always the case here, so
 * the request goes to its protocol object directly; if that shape ever changes, closing the
 * channel alone still frees us (the process then runs until it ends by itself).
 */
function killRemote(channel: ClientChannel): void {
  const inner = channel as unknown as { outgoing?: { id?: unknown; state?: unknown }; _client?: { _protocol?: { signal?: unknown } } };
  const protocol = inner._client?._protocol;
  const id = inner.outgoing?.id;
  const state = inner.outgoing?.state;
  if (typeof protocol?.signal !== 'function' || typeof id !== 'number' || (state !== 'open' && state !== 'eof')) return;
  try {
    (protocol.signal as (this: unknown, id: number, name: string) => void).call(protocol, id, 'KILL');
  } catch {
    // the channel is already closing: nothing left to stop
  }
}

/** How long close() waits for the guard to take its goodbye before ending the connection anyway. */
const GUARD_GOODBYE_GRACE_MS = 2_000;

function sayGoodbye(guard: ClientChannel): Promise<void> {
  return untilClosed(guard, () => guard.end(GUARD_GOODBYE), GUARD_GOODBYE_GRACE_MS);
}

/** The size of a local file to upload; anything but a regular file is refused before sending. */
function localUploadSize(localPath: string): number {
  const stat = statSync(localPath);
  if (!stat.isFile()) throw new Error(`${localPath} is not a regular file: only files can be uploaded`);
  return stat.size;
}

export interface SshConnectionOptions {
  /** A command that neither prints nor reads for this long is stopped (ssh.commandIdleTimeout). */
  readonly commandIdleTimeoutMs?: number;
  /** Channels open at once; keep below the server's MaxSessions. */
  readonly channelSlots?: number;
  /** Called once when the connection is closed (the connector forgets it). */
  readonly onClose?: () => void;
  /** How the connection notices a dead link, to say so when it does. */
  readonly keepalive?: { readonly intervalMs: number; readonly countMax: number };
}

/** ssh2's words for a dropped connection, said for a person. */
export function describeDrop(message: string, keepalive?: { readonly intervalMs: number; readonly countMax: number }): string {
  if (/keepalive timeout/i.test(message) && keepalive) {
    return `no answer to ${keepalive.countMax} keepalive${keepalive.countMax === 1 ? '' : 's'} in ${formatSeconds(keepalive.intervalMs * keepalive.countMax)} (ssh.keepaliveInterval ${formatSeconds(keepalive.intervalMs)}, ssh.keepaliveCountMax ${keepalive.countMax}): the link or the host is down`;
  }
  return message;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

export class SshConnection implements Connection {
  readonly stats: ConnectionStats = { roundTrips: 0, bytesSent: 0, bytesReceived: 0 };
  private becomeMode: BecomeMode = { kind: 'none' };
  private closed = false;
  private ending: Promise<void> | undefined;
  /** Why the connection broke, when it did (keepalive timeout, reset). */
  private dropReason: string | undefined;
  private readonly slots: ChannelSlots;
  /** Marks every command of this connection for the session guard (session-guard.ts). */
  readonly sessionToken = newSessionToken();
  private commandCount = 0;
  private guard: ClientChannel | undefined;

  constructor(
    readonly host: string,
    private readonly client: Client,
    private readonly options: SshConnectionOptions = {},
  ) {
    this.slots = new ChannelSlots(options.channelSlots ?? DEFAULT_CHANNEL_SLOTS);
    client.on('close', () => {
      this.closed = true;
    });
    client.on('error', (error: Error) => {
      this.dropReason = describeDrop(error.message, options.keepalive);
    });
  }

  /** Decided once, right after connecting (see detect-become.ts). */
  setBecomeMode(mode: BecomeMode): void {
    this.becomeMode = mode;
  }

  /**
   * Starts the session guard (as root when the connection becomes root): if the connection
   * dies, it ends every process the run's commands left on the host. Not awaited, not counted
   * as a round trip; a host that refuses it only loses the clean-up.
   */
  startGuard(): void {
    if (this.closed || this.guard) return;
    const wrapped = wrapBecome(this.becomeMode, sessionGuardScript(this.sessionToken));
    try {
      this.client.exec(wrapped.command.text, (error, channel) => {
        if (error) return;
        if (this.closed) {
          channel.close();
          return;
        }
        this.guard = channel;
        channel.on('data', () => undefined);
        channel.stderr.on('data', () => undefined);
        channel.on('error', () => undefined);
        channel.on('close', () => {
          if (this.guard === channel) this.guard = undefined;
        });
        if (wrapped.stdinPrefix !== undefined) channel.write(wrapped.stdinPrefix);
      });
    } catch {
      // the connection is already unusable: nothing to guard
    }
  }

  async exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
    // Each command carries `<token>.<N>`: the guard finds every one, stop() this one alone.
    const mark = `${this.sessionToken}.${++this.commandCount}`;
    const wrapped = wrapBecome(options.become ? this.becomeMode : { kind: 'none' }, command, mark);
    const stdinParts: Buffer[] = [];
    if (wrapped.stdinPrefix !== undefined) stdinParts.push(Buffer.from(wrapped.stdinPrefix));
    if (options.stdin !== undefined) stdinParts.push(Buffer.isBuffer(options.stdin) ? options.stdin : Buffer.from(options.stdin));
    const stdin = Buffer.concat(stdinParts);
    if (options.signal?.aborted) throw new CommandStoppedError(this.host, command.text, 'was cancelled before it started', options.label);
    this.stats.roundTrips += 1;
    this.stats.bytesSent += Buffer.byteLength(wrapped.command.text) + stdin.length + (options.stdinFile !== undefined ? statSync(options.stdinFile).size : 0);
    const release = await this.slots.acquire();
    return this.run(wrapped.command.text, command.text, stdin, options, release, mark);
  }

  /**
   * Ends a command kcluster stopped while the connection lives: OpenSSH delivers no signal to
   * a command without a terminal, so it would run on. Best effort, in the background.
   */
  private endStoppedCommand(mark: string, become: boolean): void {
    if (this.closed) return; // the guard ends it once sshd sees the session gone
    void this.exec(stopCommandScript(mark), { become, label: 'end the stopped command' }).catch(() => undefined);
  }

  /** `release` frees the channel slot once the channel is really closed, not when we give up on it. */
  private run(text: string, callerText: string, stdin: Buffer, options: ExecOptions, release: () => void, mark: string): Promise<ExecResult> {
    const started = Date.now();
    // What the host was doing, for a person: the label, else the caller's command (short).
    const doing = options.label ?? `\`${abbreviate(callerText, 80)}\``;
    // Errors name the caller's command, never the sudo wrapper around it.
    return new Promise<ExecResult>((resolve, reject) => {
      if (this.closed) {
        release();
        reject(new UnreachableError(this.host, `the SSH connection is closed${this.dropReason ? ` (${this.dropReason})` : ''}; could not run ${doing}`));
        return;
      }
      let tries = 0;
      const open = (): void => {
        try {
          this.client.exec(text, opened);
        } catch (error) {
          release();
          reject(new UnreachableError(this.host, `the SSH connection is not usable: ${(error as Error).message}`));
        }
      };
      const opened = (error: Error | undefined, channel: ClientChannel): void => {
        tries += 1;
        const refusedWhileUp = error !== undefined && !this.closed && this.dropReason === undefined && isSessionRefusal(error);
        if (refusedWhileUp && tries < REFUSED_CHANNEL_TRIES && !options.signal?.aborted) {
          setTimeout(open, REFUSED_CHANNEL_PAUSE_MS * tries);
          return;
        }
        if (error) {
          release();
          reject(
            this.closed || this.dropReason !== undefined
              ? new UnreachableError(
                  this.host,
                  `the connection dropped before ${doing} started${this.dropReason ? ` (${this.dropReason})` : ` (${error.message})`}`,
                )
              : new UnreachableError(
                  this.host,
                  `the server refused a new channel for ${doing}: ${error.message}${refusedWhileUp ? ` (refused ${tries} times: kcluster keeps up to ${this.slots.limit + 1} sessions open, its commands' and a guard's: raise MaxSessions in the host's sshd_config to at least that)` : ''}`,
                ),
          );
          return;
        }
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let stopped: string | undefined;
        // Fail at once: a remote process that ignores the close must not hold the caller.
        const stop = (reason: string, timedOut = false): void => {
          if (stopped !== undefined) return;
          stopped = reason;
          clearTimeout(timer);
          clearTimeout(idle);
          options.signal?.removeEventListener('abort', onAbort);
          // Best effort: OpenSSH delivers the signal to the command's shell; closing the channel
          // hangs up its pipes. The slot stays taken until the server confirms the close.
          killRemote(channel);
          channel.close();
          this.endStoppedCommand(mark, options.become === true);
          // A process that ignores both must not hold a slot forever: give it back after a grace.
          setTimeout(release, STOPPED_CHANNEL_GRACE_MS).unref();
          const stderr = Buffer.concat(err).toString('utf8');
          reject(
            new CommandStoppedError(
              this.host,
              callerText,
              reason,
              options.label,
              { code: 124, stdout: Buffer.concat(out).toString('utf8'), stderr, durationMs: Date.now() - started },
              timedOut,
            ),
          );
        };
        const timer =
          options.timeoutMs !== undefined
            ? setTimeout(() => stop(`timed out after ${options.timeoutMs} ms and was stopped`, true), options.timeoutMs)
            : undefined;
        // Idle: nothing printed and nothing sent for that long. A hang on a live link, which the
        // keepalive cannot see; every chunk in either direction starts the wait again.
        const idleMs = this.options.commandIdleTimeoutMs;
        const idle =
          idleMs !== undefined
            ? setTimeout(() => stop(`printed nothing and read nothing for ${formatSeconds(idleMs)} and was stopped (ssh.commandIdleTimeout)`, true), idleMs)
            : undefined;
        const active = (): void => void idle?.refresh();
        const onAbort = (): void => stop('was cancelled');
        options.signal?.addEventListener('abort', onAbort, { once: true });
        channel.on('data', (chunk: Buffer) => {
          out.push(chunk);
          active();
        });
        channel.stderr.on('data', (chunk: Buffer) => {
          err.push(chunk);
          active();
        });
        channel.on('error', (e: Error) => err.push(Buffer.from(`\n${e.message}`)));
        channel.on('close', (code: number | null | undefined, signal?: string) => {
          release();
          if (timer) clearTimeout(timer);
          if (idle) clearTimeout(idle);
          options.signal?.removeEventListener('abort', onAbort);
          const stdoutBytes = Buffer.concat(out);
          const stderrBytes = Buffer.concat(err);
          this.stats.bytesReceived += stdoutBytes.length + stderrBytes.length;
          const result = { stdout: stdoutBytes.toString('utf8'), stderr: stderrBytes.toString('utf8'), durationMs: Date.now() - started };
          if (stopped !== undefined) return; // already rejected by stop()
          if (code === null || code === undefined) {
            // A keepalive timeout is reported ('error') before the channels are torn down.
            if (this.closed || this.dropReason !== undefined)
              reject(new UnreachableError(this.host, `the connection dropped while running ${doing}${this.dropReason ? ` (${this.dropReason})` : ''}`));
            else resolve({ code: 255, ...result, stderr: `${result.stderr}killed by signal ${signal ?? 'unknown'}` });
          } else {
            resolve({ code, ...result });
          }
        });
        if (options.stdinFile === undefined) {
          channel.end(stdin.length > 0 ? stdin : undefined);
        } else {
          if (stdin.length > 0) channel.write(stdin);
          const file = createReadStream(options.stdinFile);
          file.on('data', active);
          file.on('error', (e: Error) => stop(`could not read ${options.stdinFile ?? 'the local file'}: ${e.message}`));
          file.pipe(channel);
        }
      };
      open();
    });
  }

  async writeFile(path: string, content: string | Buffer, options: WriteFileOptions): Promise<void> {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const command = atomicWriteCommand(path, options, { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    const label = options.label ?? `write ${path}`;
    const result = await this.exec(command, { stdin: bytes, become: options.become ?? false, label, ...(options.signal ? { signal: options.signal } : {}) });
    if (result.code !== 0) throw new RemoteCommandError(this.host, command.text, result, label);
  }

  async uploadFile(localPath: string, path: string, options: UploadOptions): Promise<void> {
    const command = atomicWriteCommand(path, options, { size: localUploadSize(localPath), sha256: options.sha256 });
    const label = options.label ?? `upload ${path}`;
    const result = await this.exec(command, {
      stdinFile: localPath,
      become: options.become ?? false,
      label,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (result.code !== 0) throw new RemoteCommandError(this.host, command.text, result, label);
  }

  async downloadFile(path: string, localPath: string, options: DownloadOptions = {}): Promise<DownloadedFile> {
    const label = options.label ?? `download ${path}`;
    if (this.closed) throw new UnreachableError(this.host, this.dropReason ?? 'the SSH connection is closed');
    // SFTP runs as the login user: a root-only file is staged as a private copy it owns.
    const staging = options.become === true && this.becomeMode.kind !== 'none';
    let source = path;
    if (staging) {
      const staged = await this.exec(
        sh`umask 077; t=$(mktemp /var/tmp/kcluster-download.XXXXXX) && cat -- ${path} > "$t" && chown -- "$SUDO_USER" "$t" && echo "$t"`,
        { become: true, label: `${label}: stage for SFTP` },
      );
      if (staged.code !== 0) throw new RemoteCommandError(this.host, `stage ${path}`, staged, label);
      source = staged.stdout.trim();
    }
    const release = await this.slots.acquire();
    this.stats.roundTrips += 1;
    try {
      const downloaded = await sftpDownload({ client: this.client, remotePath: source, localPath });
      this.stats.bytesReceived += downloaded.bytes;
      return downloaded;
    } catch (error) {
      if (this.closed) throw new UnreachableError(this.host, this.dropReason ?? (error as Error).message);
      throw new HostError(this.host, `${label} over SFTP failed: ${(error as Error).message}`);
    } finally {
      release();
      if (staging) await this.exec(sh`rm -f -- ${source}`, { label: `${label}: remove the staged copy` }).catch(() => undefined);
    }
  }

  /** Ends the session and waits (bounded) until the server closed it. */
  async close(): Promise<void> {
    if (!this.ending) {
      const guard = this.guard;
      this.guard = undefined;
      const alreadyClosed = this.closed;
      this.closed = true;
      this.ending = (async () => {
        // A goodbye first, and its answer (the guard's channel closing, one round trip): sshd
        // drops data it has not yet passed to a child when the connection ends, and a guard that
        // misses it takes the normal end for a lost link and runs its TERM pass after the run.
        if (guard && !alreadyClosed) await sayGoodbye(guard);
        await endClient(this.client, alreadyClosed);
      })();
    }
    await this.ending;
    this.options.onClose?.();
  }
}

/** OpenSSH's refusal of a session beyond MaxSessions: "open failed", administratively prohibited (reason 1). */
function isSessionRefusal(error: Error): boolean {
  return (error as Error & { reason?: number }).reason === 1 || /open failed/i.test(error.message);
}
