// The atomic write command, run by a real local /bin/sh against a temp folder: content, mode,
// no temp file left behind, and the old file intact when the write fails, when fewer or other
// bytes arrive than were sent, and when the writer's session is gone before the rename.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atomicWriteCommand } from '../../../src/orchestrator/ssh/atomic-write.js';
import type { ExpectedContent } from '../../../src/orchestrator/ssh/atomic-write.js';
import type { WriteFileOptions } from '../../../src/orchestrator/ssh/connection.js';

const expectedOf = (content: Buffer | string): ExpectedContent => {
  const bytes = Buffer.from(content);
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
};
const ANY = expectedOf('');

/** Runs the command with `received` on stdin, announcing `sent` as what was sent (defaults: the same). */
function write(path: string, received: Buffer | string, options: WriteFileOptions, sent: Buffer | string = received): { code: number; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', atomicWriteCommand(path, options, expectedOf(sent)).text], { input: received });
  return { code: r.status ?? -1, stderr: r.stderr.toString() };
}

describe('atomic write command (local sh)', () => {
  it('writes binary content with the mode, leaving no temp file', () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-aw-it's $(x)-"));
    const path = join(dir, 'a file; rm -rf x');
    const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));
    expect(write(path, content, { mode: 0o640 }).code).toBe(0);
    expect(readFileSync(path).equals(content)).toBe(true);
    expect(statSync(path).mode & 0o7777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['a file; rm -rf x']);
  });

  it('creates missing parents as 0755 (not 0700 under the write umask) only when asked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'a', 'b', 'file');
    const refused = write(path, 'x', { mode: 0o600 });
    expect(refused.code).not.toBe(0);
    expect(write(path, 'x', { mode: 0o600, mkdirParents: true }).code).toBe(0);
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'a', 'b')).mode & 0o777).toBe(0o755);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a failing write (chown to a user that does not exist) leaves the old file and no temp file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'config');
    writeFileSync(path, 'old\n');
    const r = write(path, 'new\n', { mode: 0o644, owner: 'no-such-user-kc' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no-such-user-kc');
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['config']);
  });

  it('a read-only directory refuses the write and keeps the old file', () => {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions: the same refusal is shown over real SSH with a missing directory.
      const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
      expect(write(join(dir, 'missing', 'f'), 'x', { mode: 0o644 }).code).not.toBe(0);
      expect(readdirSync(dir)).toEqual([]);
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'f');
    writeFileSync(path, 'old');
    chmodSync(dir, 0o555);
    expect(write(path, 'new', { mode: 0o644 }).code).not.toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('old');
    chmodSync(dir, 0o755);
  });

  it('a transfer cut short (fewer bytes than were sent) leaves the old file, no temp file, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'managed');
    writeFileSync(path, 'old content\n');
    const sent = Buffer.alloc(100_000, 0x61);
    for (const cut of [0, 1, 65_536, 99_999]) {
      const r = write(path, sent.subarray(0, cut), { mode: 0o644 }, sent);
      expect(r.code, `cut at ${cut}`).not.toBe(0);
      expect(r.stderr).toContain(`received ${cut} of 100000 bytes for ${path}: the transfer was cut short`);
      expect(readFileSync(path, 'utf8')).toBe('old content\n');
      expect(readdirSync(dir)).toEqual(['managed']);
    }
  });

  it('bytes of the right size but another sha256 leave the old file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'managed');
    writeFileSync(path, 'old\n');
    const r = write(path, 'evil\n', { mode: 0o644 }, 'good\n');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('do not have the sha256 that was sent');
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['managed']);
  });

  it('a writer whose session is gone (its stdout closed) does not rename, even with every byte received', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const path = join(dir, 'managed');
    writeFileSync(path, 'old\n');
    const content = Buffer.alloc(10_000, 0x62);
    // The reader of its stdout is gone before it gets there, as when sshd closed the session.
    const child = spawn('/bin/sh', ['-c', atomicWriteCommand(path, { mode: 0o644 }, expectedOf(content)).text], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.destroy();
    child.stdin.end(content);
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['managed']);
  });

  it('a SIGTERM to its process group while it removes the temp file does not stop the removal (rm slowed down by a stand-in on PATH)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-aw-'));
    const bin = mkdtempSync(join(tmpdir(), 'kc-aw-bin-'));
    const path = join(dir, 'managed');
    writeFileSync(path, 'old\n');
    // The stand-in says it started, then takes 0.5 s before the real rm: the window in which the
    // session guard's SIGTERM reached the cleanup of a cut-short upload.
    const started = join(bin, 'rm-started');
    writeFileSync(join(bin, 'rm'), `#!/bin/sh\n: > ${started}\nsleep 0.5\nexec /bin/rm "$@"\n`);
    chmodSync(join(bin, 'rm'), 0o755);
    const content = Buffer.alloc(10_000, 0x62);
    const child = spawn('/bin/sh', ['-c', atomicWriteCommand(path, { mode: 0o644 }, expectedOf(content)).text], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env: { ...process.env, PATH: `${bin}:${process.env['PATH']}` },
    });
    child.stdin!.end(content.subarray(0, 4_000));
    const deadline = Date.now() + 5_000;
    while (!readdirSync(bin).includes('rm-started') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(bin)).toContain('rm-started');
    process.kill(-child.pid!, 'SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir), 'the temp file was left behind').toEqual(['managed']);
  });

  it('quotes hostile paths and owners into inert words', () => {
    const text = atomicWriteCommand("/etc/a b/c'$(touch pwned)", { mode: 0o640, owner: 'root', group: 'adm;id', mkdirParents: true }, ANY).text;
    expect(text).toContain("mkdir -p -- '/etc/a b'");
    expect(text).toContain(`chown -- 'root:adm;id' "$t"`);
    expect(text).toContain(`mv -f -- "$t" '/etc/a b/c'\\''$(touch pwned)'`);
    expect(execFileSync('/bin/sh', ['-n', '-c', text]).toString()).toBe('');
  });

  it('refuses relative paths, directories and impossible modes', () => {
    expect(() => atomicWriteCommand('etc/x', { mode: 0o644 }, ANY)).toThrow('absolute');
    expect(() => atomicWriteCommand('/etc/', { mode: 0o644 }, ANY)).toThrow('name a file');
    expect(() => atomicWriteCommand('/etc/x', { mode: 0o10000 }, ANY)).toThrow('0o7777');
    expect(() => atomicWriteCommand('/etc/x', { mode: 0o644 }, { size: -1, sha256: ANY.sha256 })).toThrow('byte count');
    expect(() => atomicWriteCommand('/etc/x', { mode: 0o644 }, { size: 1, sha256: 'x; reboot' })).toThrow('64 lower-case hex');
  });
});
