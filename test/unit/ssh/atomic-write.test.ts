// The atomic write command, run by a real local /bin/sh against a temp folder: content, mode,
// no temp file left behind, and the old file intact when the write fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atomicWriteCommand } from '../../../src/ssh/atomic-write.js';
import type { WriteFileOptions } from '../../../src/ssh/connection.js';

function write(path: string, content: Buffer | string, options: WriteFileOptions): { code: number; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', atomicWriteCommand(path, options).text], { input: content });
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

  it('quotes hostile paths and owners into inert words', () => {
    const text = atomicWriteCommand("/etc/a b/c'$(touch pwned)", { mode: 0o640, owner: 'root', group: 'adm;id', mkdirParents: true }).text;
    expect(text).toContain("mkdir -p -- '/etc/a b'");
    expect(text).toContain(`chown -- 'root:adm;id' "$t"`);
    expect(text).toContain(`mv -f -- "$t" '/etc/a b/c'\\''$(touch pwned)'`);
    expect(execFileSync('/bin/sh', ['-n', '-c', text]).toString()).toBe('');
  });

  it('refuses relative paths, directories and impossible modes', () => {
    expect(() => atomicWriteCommand('etc/x', { mode: 0o644 })).toThrow('absolute');
    expect(() => atomicWriteCommand('/etc/', { mode: 0o644 })).toThrow('name a file');
    expect(() => atomicWriteCommand('/etc/x', { mode: 0o10000 })).toThrow('0o7777');
  });
});
