// SshConnection over a real OpenSSH sshd started by this test on 127.0.0.1: commands and exit
// codes, many channels on one connection, binary stdin, atomic writes, exact counting,
// hostile values, timeouts and cancellation.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshConnector, type SshConnector } from '../../../src/orchestrator/ssh/connector.js';
import { RemoteCommandError, type Connection, type ExecResult } from '../../../src/orchestrator/ssh/connection.js';
import { atomicWriteCommand } from '../../../src/orchestrator/ssh/atomic-write.js';
import { pollUntil } from '../../../src/orchestrator/engine/poll-until.js';
import { underSh } from '../../../src/orchestrator/ssh/become.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';
import { count, startSshd, type TestSshd } from './support/sshd.js';
import { endpoint, host, setup } from './support/inventory.js';

describe('SSH connection over a real sshd', () => {
  let sshd: TestSshd;
  let connector: SshConnector;
  let connection: Connection;

  beforeAll(async () => {
    sshd = await startSshd();
    const node = host('node1', endpoint(sshd));
    const { inventory, policy } = setup([node]);
    connector = createSshConnector({ inventory, env: {}, hostKeys: policy });
    connection = await connector.connect(node);
  });

  afterAll(async () => {
    await connector?.closeAll();
    await sshd?.stop();
  });

  it('runs a command: stdout, stderr and the exit code', async () => {
    const result = await connection.exec(sh`echo out; echo err >&2; exit 3`);
    expect(result).toMatchObject({ code: 3, stdout: 'out\n', stderr: 'err\n' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('runs many commands at once on one connection (more than the server MaxSessions of 10)', async () => {
    const logins = count(sshd.log(), 'Accepted publickey');
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => connection.exec(sh`sleep 0.5; echo ${i}`)));
    const elapsed = Date.now() - started;
    expect(results.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 24 }, (_, i) => String(i)));
    expect(results.every((r) => r.code === 0)).toBe(true);
    // One after another would take 12 s; 8 channels at a time take about 1.5 s.
    expect(elapsed).toBeLessThan(6_000);
    expect(count(sshd.log(), 'Accepted publickey')).toBe(logins);
  });

  it('feeds binary stdin unchanged', async () => {
    const data = randomBytes(300_000);
    const result = await connection.exec(sh`sha256sum; `, { stdin: data });
    expect(result.stdout.split(' ')[0]).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('writes a file atomically: content, mode, no temp file left, parents on request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-write-'));
    const path = join(dir, 'sub', 'dir', 'file.bin');
    const content = Buffer.concat([randomBytes(200_000), Buffer.from([0, 10, 13, 255])]);
    await connection.writeFile(path, content, { mode: 0o640, mkdirParents: true });
    expect(readFileSync(path).equals(content)).toBe(true);
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(statSync(join(dir, 'sub')).mode & 0o777).toBe(0o755);
    expect(readdirSync(join(dir, 'sub', 'dir'))).toEqual(['file.bin']);
    await connection.writeFile(path, 'second\n', { mode: 0o600 });
    expect(readFileSync(path, 'utf8')).toBe('second\n');
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    expect(readdirSync(join(dir, 'sub', 'dir'))).toEqual(['file.bin']);
  });

  it('a failing write leaves the old file intact and no temp file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-write-'));
    const path = join(dir, 'config');
    writeFileSync(path, 'old\n', { mode: 0o644 });
    const badOwner = connection.writeFile(path, 'new\n', { mode: 0o644, owner: 'no-such-user-kc' });
    await expect(badOwner).rejects.toThrow(RemoteCommandError);
    await expect(badOwner).rejects.toThrow(/node1: command \(write .*config\) exited 1/);
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['config']);
    await expect(connection.writeFile(join(dir, 'missing', 'f'), 'x', { mode: 0o644 })).rejects.toThrow(/No such file or directory/);
    expect(readdirSync(dir)).toEqual(['config']);
  });

  it('keeps hostile values inert in commands and paths', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-hostile-'));
    const hostile = [`'; touch ${dir}/pwned1 #`, `$(touch ${dir}/pwned2)`, `\`touch ${dir}/pwned3\``, `"; touch ${dir}/pwned4; "`];
    for (const value of hostile) {
      const result = await connection.exec(sh`printf '%s' ${value}`);
      expect(result.stdout).toBe(value);
    }
    const name = join(dir, `$(touch ${dir}/pwned5)'; touch ${dir}/pwned6 #`.replaceAll('/', '_'));
    await connection.writeFile(name, 'x', { mode: 0o644 });
    expect(readFileSync(name, 'utf8')).toBe('x');
    expect(readdirSync(dir).filter((f) => f.startsWith('pwned'))).toEqual([]);
    for (const n of [1, 2, 3, 4, 5, 6]) expect(existsSync(join(dir, `pwned${n}`))).toBe(false);
  });

  it('counts round trips and bytes exactly', async () => {
    const node = host('counted', endpoint(sshd));
    const { inventory, policy } = setup([node]);
    const own = createSshConnector({ inventory, env: {}, hostKeys: policy });
    try {
      const c = await own.connect(node);
      expect(c.stats).toEqual({ roundTrips: 0, bytesSent: 0, bytesReceived: 0 });
      const dir = mkdtempSync(join(tmpdir(), 'kc-count-'));
      const commands = [sh`echo hello`, sh`printf 'é%s' ${'x'} >&2`, sh`cat`];
      const results: ExecResult[] = [];
      results.push(await c.exec(commands[0]!));
      results.push(await c.exec(commands[1]!));
      results.push(await c.exec(commands[2]!, { stdin: 'piped ✓' }));
      const content = Buffer.from('file content\n');
      await c.writeFile(join(dir, 'f'), content, { mode: 0o644 });
      const written = atomicWriteCommand(join(dir, 'f'), { mode: 0o644 }, { size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
      // What goes on the wire: each command as the login shell gets it (under sh, marked for the
      // session guard with the connection's token and the command's number, from 1).
      const token = (c as unknown as { sessionToken: string }).sessionToken;
      const textBytes = [...commands, written].reduce((n, cmd, i) => n + Buffer.byteLength(underSh(cmd, `${token}.${i + 1}`).text), 0);
      expect(c.stats.roundTrips).toBe(4);
      expect(c.stats.bytesSent).toBe(textBytes + Buffer.byteLength('piped ✓') + content.length);
      const received = results.reduce((n, r) => n + Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr), 0);
      // The write command prints one line before its rename (its check that the session is alive).
      expect(c.stats.bytesReceived).toBe(received + 'written\n'.length);
      expect(received).toBe(6 + 3 + Buffer.byteLength('piped ✓'));
    } finally {
      await own.closeAll();
    }
  });

  it('stops a command at its timeout with a clear message, and the connection stays usable', async () => {
    const started = Date.now();
    const slow = connection.exec(sh`sleep 8`, { timeoutMs: 300, label: 'slow step' });
    await expect(slow).rejects.toThrow('node1: command (slow step) timed out after 300 ms and was stopped: sleep 8');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect((await connection.exec(sh`echo still here`)).stdout).toBe('still here\n');
  });

  it('a wait polls on past a probe that runs over its limit, until the state is reached', async () => {
    let probes = 0;
    // The first probe hangs past its 400 ms limit; later ones answer at once, with a limit a
    // loaded CI machine cannot miss (a 400 ms limit on them made the count flaky under load).
    const outcome = await pollUntil({
      timeoutMs: 20_000,
      intervalMs: 100,
      signal: new AbortController().signal,
      probe: () =>
        probes++ === 0
          ? connection.exec(sh`sleep 5; echo late`, { timeoutMs: 400, label: 'probe' })
          : connection.exec(sh`echo ready`, { timeoutMs: 10_000, label: 'probe' }),
      done: (r) => r.stdout === 'ready\n',
    });
    expect(outcome).toMatchObject({ reached: true });
    expect(probes).toBe(2);
    // A probe that fails otherwise (the host says no) is not retried as "slow".
    await expect(
      pollUntil({
        timeoutMs: 5_000,
        intervalMs: 100,
        signal: new AbortController().signal,
        probe: () =>
          connection.exec(sh`exit 3`).then((r) => {
            if (r.code !== 0) throw new Error(`probe exited ${r.code}`);
            return r;
          }),
        done: () => true,
      }),
    ).rejects.toThrow('probe exited 3');
  });

  it('cancels a running command when its AbortSignal fires', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(connection.exec(sh`sleep 8`, { signal: controller.signal })).rejects.toThrow('was cancelled');
    await expect(connection.exec(sh`true`, { signal: controller.signal })).rejects.toThrow('was cancelled before it started');
  });
});
