// The state folder's lock with real processes: a second run (another node process) is refused
// with the holder's pid, host and start; a lock left by a process that is gone is taken over
// with a warning; the same process may nest; a state folder that is a file is bad input.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireStateLock } from '../../../src/cli/state-lock.js';

/** Tries the lock from another node process, with the built module (npm test builds first). */
function tryFromAnotherProcess(stateDir: string): { code: number; out: string } {
  const dist = pathToFileURL(resolve(import.meta.dirname, '../../../dist/src/cli/state-lock.js')).href;
  const script = `import(${JSON.stringify(dist)}).then(({ acquireStateLock }) => { try { acquireStateLock(${JSON.stringify(stateDir)}, 'kcluster test', (l) => console.log(l)); console.log('got it'); } catch (e) { console.log(e.message); process.exit(2); } })`;
  try {
    return { code: 0, out: execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }) };
  } catch (error) {
    const e = error as { status: number; stdout: string };
    return { code: e.status, out: e.stdout };
  }
}

describe('state lock (real processes)', () => {
  it('refuses a second process with the holder named, and frees the lock on release', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-lock-'));
    const lock = acquireStateLock(dir, 'kcluster apply -i x.yaml', () => undefined);
    const second = tryFromAnotherProcess(dir);
    expect(second.code).toBe(2);
    expect(second.out).toContain(`another kcluster run holds ${join(dir, 'lock')}: pid ${process.pid} on ${hostname()}, started `);
    expect(second.out).toContain('(kcluster apply -i x.yaml)');
    lock.release();
    expect(existsSync(join(dir, 'lock'))).toBe(false);
    expect(tryFromAnotherProcess(dir)).toEqual({ code: 0, out: 'got it\n' });
    // That process ended without releasing: its exit handler removed the lock.
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('takes over a lock whose process is gone, with a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-lock-'));
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => gone.on('close', r));
    writeFileSync(
      join(dir, 'lock'),
      JSON.stringify({ pid: gone.pid, host: hostname(), started: '2026-01-01T00:00:00.000Z', command: 'kcluster apply (killed)' }),
    );
    const warnings: string[] = [];
    const lock = acquireStateLock(dir, 'kcluster apply', (l) => warnings.push(l));
    expect(warnings).toEqual([
      expect.stringContaining(`left by pid ${gone.pid} (kcluster apply (killed), started 2026-01-01T00:00:00.000Z), which is no longer running`),
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'lock'), 'utf8'))).toMatchObject({ pid: process.pid, command: 'kcluster apply' });
    lock.release();
  });

  it('never breaks a lock held from another machine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-lock-'));
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: 1, host: 'other-controller', started: 'x', command: 'kcluster upgrade' }));
    expect(() => acquireStateLock(dir, 'kcluster apply', () => undefined)).toThrow(
      'pid 1 on other-controller, started x (kcluster upgrade); wait for it to end, or if it is gone, delete the lock file',
    );
  });

  it('nests within one process (a command that runs a playbook under its own lock)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-lock-'));
    const outer = acquireStateLock(dir, 'kcluster etcd snapshot restore', () => undefined);
    const inner = acquireStateLock(dir, 'kcluster etcd snapshot restore', () => undefined);
    inner.release();
    expect(existsSync(join(dir, 'lock'))).toBe(true);
    outer.release();
    expect(existsSync(join(dir, 'lock'))).toBe(false);
  });

  it('a state folder that is a file is bad input', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kc-lock-')), 'state');
    writeFileSync(file, 'x');
    expect(() => acquireStateLock(file, 'kcluster apply', () => undefined)).toThrow(`the state folder ${file} is not a directory`);
  });
});
