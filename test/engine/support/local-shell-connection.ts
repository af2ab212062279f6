// A stand-in for SSH in engine tests: runs each command with the local /bin/sh, counts round
// trips like the real connection, and records every command. Named "fake" in test titles.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type {
  Connection,
  ConnectionStats,
  DownloadedFile,
  ExecOptions,
  ExecResult,
  UploadOptions,
  WriteFileOptions,
} from '../../../src/orchestrator/ssh/connection.js';
import type { ShellCommand } from '../../../src/orchestrator/ssh/quote.js';
import { atomicWriteCommand } from '../../../src/orchestrator/ssh/atomic-write.js';
import { UnreachableError } from '../../../src/orchestrator/ssh/connection.js';

/** One order for every connection's commands and closes, to compare when things happened. */
let sequence = 0;

export class LocalShellConnection implements Connection {
  readonly stats: ConnectionStats = { roundTrips: 0, bytesSent: 0, bytesReceived: 0 };
  readonly commands: { label: string; text: string; become: boolean; seq: number }[] = [];
  /** When close() was called (in the shared sequence); a later exec fails like a closed SSH session. */
  closedSeq: number | undefined;
  /** Called before each exec; throw to simulate a broken host. */
  beforeExec: (label: string) => void = () => {};
  inFlight = 0;

  constructor(readonly host: string) {}

  exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
    if (this.closedSeq !== undefined) return Promise.reject(new UnreachableError(this.host, 'the SSH connection is closed'));
    this.stats.roundTrips += 1;
    this.commands.push({ label: options.label ?? '', text: command.text, become: options.become === true, seq: ++sequence });
    this.beforeExec(options.label ?? '');
    const started = Date.now();
    return new Promise((resolve) => {
      const child = execFile('/bin/sh', ['-c', command.text], { encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, durationMs: Date.now() - started });
      });
      // A command that never reads stdin closes the pipe early: that is not an error.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(options.stdin ?? '');
    });
  }

  async writeFile(path: string, content: string | Buffer, options: WriteFileOptions): Promise<void> {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    await this.writeBytes(path, bytes, options, createHash('sha256').update(bytes).digest('hex'));
  }

  private async writeBytes(path: string, bytes: Buffer, options: WriteFileOptions, sha256: string): Promise<void> {
    // Owner changes need root on the controller: tests write as whoever runs them.
    const { mode, mkdirParents } = options;
    const expected = { size: bytes.length, sha256 };
    const result = await this.exec(atomicWriteCommand(path, { mode, ...(mkdirParents ? { mkdirParents } : {}) }, expected), {
      stdin: bytes,
      label: `write ${path}`,
    });
    if (result.code !== 0) throw new Error(`write ${path} failed: ${result.stderr}`);
  }

  async uploadFile(localPath: string, path: string, options: UploadOptions): Promise<void> {
    await this.writeBytes(path, readFileSync(localPath), options, options.sha256);
  }

  async downloadFile(path: string, localPath: string): Promise<DownloadedFile> {
    this.stats.roundTrips += 1;
    const bytes = readFileSync(path);
    writeFileSync(localPath, bytes);
    return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  async close(): Promise<void> {
    this.closedSeq ??= ++sequence;
  }
}
