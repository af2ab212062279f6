// The session guard on this machine's own sh and /proc: EOF on its stdin without the goodbye
// ends every process group whose leader carries the token; the goodbye, or another token,
// leaves them alone. Plus the pure pieces around it (marking, keepalive count, drop wording).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { underSh, wrapBecome } from '../../../src/ssh/become.js';
import { keepaliveCountForSsh2 } from '../../../src/ssh/connector.js';
import { sh, shellRaw } from '../../../src/ssh/quote.js';
import { GUARD_GOODBYE, newSessionToken, sessionGuardScript } from '../../../src/ssh/session-guard.js';
import { describeDrop } from '../../../src/ssh/ssh-connection.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A command as sshd starts it: its own session and process group (detached), under a login shell. */
function startMarked(token: string, script: string): ChildProcess {
  return spawn('/bin/bash', ['-c', underSh(shellRaw(script), token).text], { detached: true, stdio: 'ignore' });
}

async function pidsOf(marker: string): Promise<number[]> {
  try {
    return execFileSync('pgrep', ['-f', marker], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function startGuard(token: string): { guard: ChildProcess; exited: Promise<number | null> } {
  const guard = spawn('/bin/sh', ['-c', sessionGuardScript(token).text], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise<number | null>((r) => guard.on('exit', (code) => r(code)));
  return { guard, exited };
}

describe('session guard', () => {
  it('EOF without the goodbye kills the marked commands and what they started, not others', async () => {
    const token = newSessionToken();
    const other = newSessionToken();
    const tag = `kc-guard-${token.slice(0, 8)}`;
    const { guard, exited } = startGuard(token);
    // A shell that waits on a child that neither reads nor writes, and a background grandchild.
    const marked = startMarked(token, `sleep 3001 & sleep 3002; : ${tag}`);
    const unmarked = startMarked(other, `sleep 3003; : ${tag}`);
    expect(await until(async () => (await pidsOf('sleep 300[123]')).length >= 3, 5_000)).toBe(true);
    const before = await pidsOf('sleep 300[12]');
    const kept = await pidsOf('sleep 3003');
    guard.stdin!.end();
    expect(await exited).toBe(0);
    expect(await until(() => before.every((p) => !alive(p)), 5_000), 'marked sleeps still running').toBe(true);
    expect(kept.every(alive), 'a command of another session was killed').toBe(true);
    expect(alive(guard.pid!)).toBe(false);
    process.kill(-unmarked.pid!, 'SIGKILL');
    void marked;
  });

  it('the goodbye leaves everything alone', async () => {
    const token = newSessionToken();
    const { guard, exited } = startGuard(token);
    const marked = startMarked(token, 'sleep 3004');
    expect(await until(async () => (await pidsOf('sleep 3004')).length >= 1, 5_000)).toBe(true);
    guard.stdin!.end(GUARD_GOODBYE);
    expect(await exited).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect((await pidsOf('sleep 3004')).every(alive)).toBe(true);
    expect((await pidsOf('sleep 3004')).length).toBeGreaterThan(0);
    process.kill(-marked.pid!, 'SIGKILL');
  });

  it('refuses a token that is not hex, so nothing else can reach the script', () => {
    expect(() => sessionGuardScript("x'; rm -rf /")).toThrow(/hex/);
    expect(() => underSh(sh`true`, 'ABC')).toThrow(/hex/);
    expect(newSessionToken()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('marks each command by an assignment before exec, under sudo too, and not without a token', () => {
    const t = '0123456789abcdef';
    expect(underSh(sh`true`).text).toBe("exec sh -c true");
    expect(underSh(sh`true`, t).text).toBe(`KCLUSTER_SESSION=${t} exec sh -c true`);
    expect(wrapBecome({ kind: 'sudo-nopasswd' }, sh`true`, t).command.text).toBe(`KCLUSTER_SESSION=${t} exec sudo -n -H -- sh -c true`);
    expect(wrapBecome({ kind: 'sudo-password', password: 'p' }, sh`true`, t).command.text).toBe(`KCLUSTER_SESSION=${t} exec sudo -S -k -H -p '' -- sh -c true`);
    expect(wrapBecome({ kind: 'sudo-nopasswd' }, sh`true`).command.text).toBe('sudo -n -H -- sh -c true');
  });
});

describe('keepalive', () => {
  it('gives ssh2 one fewer than the inventory count (ssh2 gives up on the one after its max)', () => {
    expect(keepaliveCountForSsh2(3)).toBe(2);
    expect(keepaliveCountForSsh2(1)).toBe(0);
  });

  it('says a keepalive timeout in words, with the settings that bound it', () => {
    expect(describeDrop('Keepalive timeout', { intervalMs: 5_000, countMax: 3 })).toBe(
      'no answer to 3 keepalives in 15 s (ssh.keepaliveInterval 5 s, ssh.keepaliveCountMax 3): the link or the host is down',
    );
    expect(describeDrop('Keepalive timeout', { intervalMs: 1_500, countMax: 1 })).toContain('no answer to 1 keepalive in 1.5 s');
    expect(describeDrop('read ECONNRESET', { intervalMs: 5_000, countMax: 3 })).toBe('read ECONNRESET');
  });
});
