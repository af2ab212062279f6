// A Connection over one ssh2 Client: many channels, every command quoted, counted, and run
// as root through the become mode when asked.
import type { Client, ClientChannel } from 'ssh2';
import type { Connection, ConnectionStats, ExecOptions, ExecResult, WriteFileOptions } from './connection.js';
import { RemoteCommandError, UnreachableError } from './connection.js';
import { wrapBecome, type BecomeMode } from './become.js';
import type { ShellCommand } from './quote.js';
import { atomicWriteCommand } from './atomic-write.js';

export class SshConnection implements Connection {
  readonly stats: ConnectionStats = { roundTrips: 0, bytesSent: 0, bytesReceived: 0 };
  private becomeMode: BecomeMode = { kind: 'none' };
  private closed = false;

  constructor(
    readonly host: string,
    private readonly client: Client,
    private readonly onClose: () => void = () => {},
  ) {
    client.on('close', () => {
      this.closed = true;
    });
  }

  setBecomeMode(mode: BecomeMode): void {
    this.becomeMode = mode;
  }

  exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
    const wrapped = options.become ? wrapBecome(this.becomeMode, command) : { command };
    const stdinParts: Buffer[] = [];
    if (wrapped.stdinPrefix !== undefined) stdinParts.push(Buffer.from(wrapped.stdinPrefix));
    if (options.stdin !== undefined) stdinParts.push(Buffer.isBuffer(options.stdin) ? options.stdin : Buffer.from(options.stdin));
    const stdin = Buffer.concat(stdinParts);
    this.stats.roundTrips += 1;
    this.stats.bytesSent += Buffer.byteLength(wrapped.command.text) + stdin.length;
    const started = Date.now();
    return new Promise<ExecResult>((resolve, reject) => {
      if (this.closed) {
        reject(new UnreachableError(this.host, 'the SSH connection is closed'));
        return;
      }
      this.client.exec(wrapped.command.text, (error: Error | undefined, channel: ClientChannel) => {
        if (error) {
          reject(new UnreachableError(this.host, `cannot open a channel: ${error.message}`));
          return;
        }
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let timer: NodeJS.Timeout | undefined;
        let timedOut = false;
        if (options.timeoutMs !== undefined) {
          timer = setTimeout(() => {
            timedOut = true;
            channel.close();
          }, options.timeoutMs);
        }
        channel.on('data', (chunk: Buffer) => out.push(chunk));
        channel.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        channel.on('close', (code: number | null, signal?: string) => {
          if (timer) clearTimeout(timer);
          const stdout = Buffer.concat(out).toString('utf8');
          const stderr = Buffer.concat(err).toString('utf8');
          this.stats.bytesReceived += stdout.length + stderr.length;
          const durationMs = Date.now() - started;
          if (timedOut) {
            reject(new RemoteCommandError(this.host, command.text, { code: 124, stdout, stderr: `${stderr}\ntimed out after ${options.timeoutMs} ms`, durationMs }, options.label));
            return;
          }
          if (code === null || code === undefined) {
            if (this.closed) {
              reject(new UnreachableError(this.host, `the connection dropped while running ${options.label ?? 'a command'}`));
              return;
            }
            resolve({ code: 255, stdout, stderr: `${stderr}killed by signal ${signal ?? 'unknown'}`, durationMs });
            return;
          }
          resolve({ code, stdout, stderr, durationMs });
        });
        channel.end(stdin.length > 0 ? stdin : undefined);
      });
    });
  }

  async writeFile(path: string, content: string | Buffer, options: WriteFileOptions): Promise<void> {
    const command = atomicWriteCommand(path, options);
    const result = await this.exec(command, { stdin: content, become: options.become ?? false, label: options.label ?? `write ${path}` });
    if (result.code !== 0) throw new RemoteCommandError(this.host, command.text, result, options.label ?? `write ${path}`);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.client.end();
    }
    this.onClose();
  }
}
