// A real OpenSSH sshd for tests: started as a child process on 127.0.0.1 on a free port,
// with its own host key, config and authorized_keys in a temp folder, stopped by its PID.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  readonly dir: string;
  readonly port: number;
  readonly user: string;
  /** Private key accepted by this sshd (authorized_keys). */
  readonly clientKey: string;
  readonly hostKeyFile: string;
  /** Everything sshd logged so far (LogLevel VERBOSE, on stderr with -e; DEBUG lines would leak into sessions' stderr). */
  log(): string;
  pid(): number;
  /** Restart on the same port with a freshly generated host key (a "re-installed" host). */
  rekey(): Promise<void>;
  stop(): Promise<void>;
}

function run(command: string, args: readonly string[]): void {
  const r = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr?.toString() ?? r.error?.message}`);
}

export function newKey(file: string, passphrase = ''): string {
  rmSync(file, { force: true });
  rmSync(`${file}.pub`, { force: true });
  run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'kcluster-test', '-f', file]);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

/** Install OpenSSH's server once if missing, without letting the package start a daemon on port 22. */
function ensureSshd(): void {
  if (existsSync(SSHD)) return;
  const policy = '/usr/sbin/policy-rc.d';
  const ours = !existsSync(policy);
  if (ours) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    run('apt-get', ['install', '-y', '--no-install-recommends', 'openssh-server']);
  } finally {
    if (ours) unlinkSync(policy);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitForListening(child: ChildProcess, port: number, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => fail(new Error(`sshd did not start listening on 127.0.0.1:${port} within 10 s:\n${output()}`)), 10_000);
    const check = (): void => {
      if (output().includes(`Server listening on 127.0.0.1 port ${port}`)) done();
    };
    const exited = (code: number | null): void => fail(new Error(`sshd exited (${code}) before listening:\n${output()}`));
    const done = (): void => {
      clearTimeout(deadline);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      resolve();
    };
    const fail = (error: Error): void => {
      clearTimeout(deadline);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      reject(error);
    };
    child.stderr?.on('data', check);
    child.once('exit', exited);
    check();
  });
}

export interface SshdOptions {
  /** Extra sshd_config lines, e.g. SetEnv for the sessions. */
  readonly extraConfig?: readonly string[];
  /** sshd's MaxSessions (OpenSSH's default, 10, unless given): sshd keeps a keyword's first value, so not through extraConfig. */
  readonly maxSessions?: number;
}

export async function startSshd(options: SshdOptions = {}): Promise<TestSshd> {
  ensureSshd();
  // sshd refuses to start without its privilege separation folder (normally made by systemd).
  if (userInfo().uid === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'kcluster-sshd-'));
  const hostKeyFile = join(dir, 'ssh_host_ed25519_key');
  const clientKey = join(dir, 'id_client');
  newKey(hostKeyFile);
  writeFileSync(join(dir, 'authorized_keys'), `${newKey(clientKey)}\n`, { mode: 0o600 });
  const port = await freePort();
  const user = userInfo().username;
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKeyFile}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      // The temp folder sits under world-writable /tmp, which StrictModes would refuse.
      'StrictModes no',
      'UsePAM no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'AllowTcpForwarding yes',
      `MaxSessions ${options.maxSessions ?? 10}`,
      'LogLevel VERBOSE',
      ...(options.extraConfig ?? []),
      '',
    ].join('\n'),
  );
  let output = '';
  let child: ChildProcess | undefined;

  async function launch(): Promise<void> {
    const from = output.length;
    const started = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child = started;
    await waitForListening(started, port, () => output.slice(from));
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.pid === undefined) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    process.kill(running.pid, 'SIGTERM');
    await exited;
  }

  await launch();
  return {
    dir,
    port,
    user,
    clientKey,
    hostKeyFile,
    log: () => output,
    pid: () => child?.pid ?? -1,
    async rekey() {
      await stop();
      newKey(hostKeyFile);
      await launch();
    },
    stop,
  };
}

/** How many times `needle` occurs in `text`. */
export function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
