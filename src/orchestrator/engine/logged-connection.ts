// A Connection that writes every command to the debug log: label, command text, exit code,
// duration and the end of stderr. Stdin is never logged: it may carry secrets.
import type { Connection, DownloadedFile, DownloadOptions, ExecOptions, ExecResult, UploadOptions, WriteFileOptions } from '../ssh/connection.js';
import type { ShellCommand } from '../ssh/quote.js';

/**
 * `signal` (the run's) stops file transfers on Ctrl-C: they land whole or not at all, so a
 * 64 MiB upload need not finish first. Other commands finish as they are.
 */
export function loggedConnection(inner: Connection, log: (line: string) => void, signal?: AbortSignal): Connection {
  const withSignal = <T extends WriteFileOptions>(options: T): T => (signal && options.signal === undefined ? { ...options, signal } : options);
  return {
    host: inner.host,
    get stats() {
      return inner.stats;
    },
    async exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
      const label = options.label ?? 'command';
      log(
        `${inner.host}: exec [${label}]${options.become ? ' (become)' : ''}${options.stdin !== undefined ? ` (stdin: ${Buffer.byteLength(options.stdin)} bytes, not logged)` : ''}\n${command.text}`,
      );
      try {
        const result = await inner.exec(command, options);
        const tail = result.stderr.trim().split('\n').slice(-10).join('\n');
        log(`${inner.host}: exit ${result.code} in ${result.durationMs} ms [${label}]${tail ? `\nstderr: ${tail}` : ''}`);
        return result;
      } catch (error) {
        log(`${inner.host}: error [${label}]: ${(error as Error).message}`);
        throw error;
      }
    },
    async writeFile(path: string, content: string | Buffer, options: WriteFileOptions): Promise<void> {
      log(`${inner.host}: write ${path} (${Buffer.byteLength(content)} bytes, mode ${options.mode.toString(8)}, content not logged)`);
      try {
        await inner.writeFile(path, content, withSignal(options));
      } catch (error) {
        log(`${inner.host}: error writing ${path}: ${(error as Error).message}`);
        throw error;
      }
    },
    async uploadFile(localPath: string, path: string, options: UploadOptions): Promise<void> {
      log(`${inner.host}: upload ${localPath} -> ${path} (mode ${options.mode.toString(8)})`);
      try {
        await inner.uploadFile(localPath, path, withSignal(options));
      } catch (error) {
        log(`${inner.host}: error uploading ${path}: ${(error as Error).message}`);
        throw error;
      }
    },
    async downloadFile(path: string, localPath: string, options?: DownloadOptions): Promise<DownloadedFile> {
      log(`${inner.host}: download ${path} -> ${localPath}`);
      const started = Date.now();
      try {
        const done = await inner.downloadFile(path, localPath, options);
        log(`${inner.host}: downloaded ${path}: ${done.bytes} bytes, sha256 ${done.sha256}, ${Date.now() - started} ms`);
        return done;
      } catch (error) {
        log(`${inner.host}: error downloading ${path}: ${(error as Error).message}`);
        throw error;
      }
    },
    close: () => inner.close(),
  };
}
