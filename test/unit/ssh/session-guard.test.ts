// The session guard on this machine's own sh and /proc: EOF on its stdin without the goodbye
// ends every process group whose leader carries the token; the goodbye, or another token,
// leaves them alone. Plus the pure pieces around it (marking, keepalive count, drop wording).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { underSh, wrapBecome } from '../../../src/orchestrator/ssh/become.js';
import { keepaliveCountForSsh2 } from '../../../src/orchestrator/ssh/connector.js';
import { sh, shellRaw } from '../../../src/orchestrator/ssh/quote.js';
import { GUARD_GOODBYE, newSessionToken, sessionGuardScript, stopCommandScript } from '../../../src/orchestrator/ssh/session-guard.js';
import { describeDrop } from '../../../src/orchestrator/ssh/ssh-connection.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let commands = 0;
/** A command as sshd starts it: its own session and process group (detached), under a login shell, marked `<token>.<N>`. */
function startMarked(token: string, script: string, mark = `${token}.${++commands}`): ChildProcess {
  return spawn('/bin/bash', ['-c', underSh(shellRaw(script), mark).text], { detached: true, stdio: 'ignore' });
}

function pidsOf(marker: string): number[] {
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
  it('EOF without the goodbye kills the marked groups, with what they started, and nothing else', async () => {
    const token = newSessionToken();
    const other = newSessionToken();
    // Sleep lengths unique to this run, so that ps finds only its own processes.
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const { guard, exited } = startGuard(token);
    // A shell that waits on a child that neither reads nor writes, a background child, and one
    // without the token (`env -u`, as under sudo's env_reset): only the group kill reaches it.
    const marked = startMarked(token, `sleep ${n}1 & env -u KCLUSTER_SESSION sleep ${n}2 & sleep ${n}3`);
    const unmarked = startMarked(other, `sleep ${n}4`);
    try {
      expect(await until(async () => (await pidsOf(`^sleep ${n}[1234]$`)).length >= 4, 5_000)).toBe(true);
      const doomed = await pidsOf(`^sleep ${n}[123]$`);
      const kept = await pidsOf(`^sleep ${n}4$`);
      expect(doomed.length).toBe(3);
      guard.stdin!.end();
      expect(await exited).toBe(0);
      expect(await until(() => doomed.every((p) => !alive(p)), 5_000), 'a process of the marked group is still running').toBe(true);
      expect(alive(marked.pid!)).toBe(false);
      expect(kept.every(alive), 'a command of another session was killed').toBe(true);
    } finally {
      for (const child of [marked, unmarked]) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('ends with SIGTERM first: a shell that traps it removes its temp file, like an upload', async () => {
    const token = newSessionToken();
    const dir = mkdtempSync(join(tmpdir(), 'kc-guard-'));
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const { guard, exited } = startGuard(token);
    const marked = startMarked(
      token,
      `t=$(mktemp ${dir}/.kcluster-write.XXXXXX) || exit 1; trap 'rm -f -- "$t"' EXIT; trap 'exit 1' HUP INT TERM PIPE; sleep ${n}8 > "$t"`,
    );
    try {
      expect(await until(() => readdirSync(dir).length === 1 && pidsOf(`^sleep ${n}8$`).length === 1, 5_000)).toBe(true);
      guard.stdin!.end();
      expect(await exited).toBe(0);
      expect(readdirSync(dir), 'the temp file was left behind').toEqual([]);
      expect(pidsOf(`^sleep ${n}8$`)).toEqual([]);
    } finally {
      try {
        process.kill(-marked.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('waits for a cleanup slower than a second (a sync of a large file on a loaded disk) before it kills', async () => {
    const token = newSessionToken();
    const dir = mkdtempSync(join(tmpdir(), 'kc-guard-'));
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const { guard, exited } = startGuard(token);
    // The EXIT trap needs 2.5 s before it removes the temp file: a fixed 1 s grace killed it midway.
    const marked = startMarked(
      token,
      `t=$(mktemp ${dir}/.kcluster-write.XXXXXX) || exit 1; trap 'sleep 2.5; rm -f -- "$t"' EXIT; trap 'exit 1' HUP INT TERM PIPE; sleep ${n}7 > "$t"`,
    );
    try {
      expect(await until(() => readdirSync(dir).length === 1 && pidsOf(`^sleep ${n}7$`).length === 1, 5_000)).toBe(true);
      guard.stdin!.end();
      expect(await exited).toBe(0);
      expect(readdirSync(dir), 'the temp file was left behind').toEqual([]);
    } finally {
      try {
        process.kill(-marked.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('kills with SIGKILL what ignores SIGTERM, after its 10 s grace', async () => {
    const token = newSessionToken();
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const { guard, exited } = startGuard(token);
    // An ignored signal stays ignored across exec: the sleep ignores SIGTERM too.
    const marked = startMarked(token, `trap '' TERM; sleep ${n}6`);
    try {
      expect(await until(() => pidsOf(`^sleep ${n}6$`).length === 1, 5_000)).toBe(true);
      const started = Date.now();
      guard.stdin!.end();
      expect(await exited).toBe(0);
      const took = Date.now() - started;
      expect(pidsOf(`^sleep ${n}6$`)).toEqual([]);
      expect(took).toBeGreaterThanOrEqual(9_000);
    } finally {
      try {
        process.kill(-marked.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 20_000);

  it('the goodbye leaves everything alone', async () => {
    const token = newSessionToken();
    const { guard, exited } = startGuard(token);
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const marked = startMarked(token, `sleep ${n}5`);
    try {
      expect(await until(async () => (await pidsOf(`^sleep ${n}5$`)).length === 1, 5_000)).toBe(true);
      const pids = await pidsOf(`^sleep ${n}5$`);
      guard.stdin!.end(GUARD_GOODBYE);
      expect(await exited).toBe(0);
      await new Promise((r) => setTimeout(r, 200));
      expect(pids.every(alive)).toBe(true);
    } finally {
      process.kill(-marked.pid!, 'SIGKILL');
    }
  });

  it('stopCommandScript ends one command of a live session, with what it started, and leaves its sibling alone', async () => {
    const token = newSessionToken();
    const n = 40_000 + Math.floor(Math.random() * 50_000);
    const stopped = startMarked(token, `sleep ${n}1 & sleep ${n}2`, `${token}.7`);
    const sibling = startMarked(token, `sleep ${n}3`, `${token}.8`);
    try {
      expect(await until(() => pidsOf(`^sleep ${n}[123]$`).length === 3, 5_000)).toBe(true);
      const ender = spawn('/bin/sh', ['-c', underSh(stopCommandScript(`${token}.7`), `${token}.9`).text], { stdio: 'ignore' });
      expect(await new Promise((r) => ender.on('exit', r))).toBe(0);
      expect(await until(() => pidsOf(`^sleep ${n}[12]$`).length === 0, 5_000), 'the stopped command still runs').toBe(true);
      expect(pidsOf(`^sleep ${n}3$`)).toHaveLength(1);
    } finally {
      for (const child of [stopped, sibling]) {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('a command mark is the token and a number; anything else is refused', () => {
    expect(() => stopCommandScript('0123456789abcdef')).toThrow(/<token>.<N>/);
    expect(() => stopCommandScript("0123456789abcdef.1'; reboot")).toThrow(/<token>.<N>/);
    expect(stopCommandScript('0123456789abcdef.12').text).toContain('grep -l -s -z -F -x -e KCLUSTER_SESSION=0123456789abcdef.12 /proc');
  });

  it('refuses a token that is not hex, so nothing else can reach the script', () => {
    expect(() => sessionGuardScript("x'; rm -rf /")).toThrow(/hex/);
    expect(() => underSh(sh`true`, 'ABC')).toThrow(/hex/);
    expect(newSessionToken()).toMatch(/^[0-9a-f]{24}$/);
  });

  it('marks each command by an assignment before exec, under sudo too, and not without a token', () => {
    const t = '0123456789abcdef';
    expect(underSh(sh`true`).text).toBe('exec sh -c true');
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
