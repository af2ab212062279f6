// sudo wrapping: the password travels on stdin only, whatever it contains.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrapBecome } from '../../../src/ssh/become.js';
import { atomicWriteCommand } from '../../../src/ssh/atomic-write.js';
import { sh } from '../../../src/ssh/quote.js';

describe('become', () => {
  const command = sh`cat > ${"/etc/it's here"}`;
  it('leaves commands alone for root', () => {
    expect(wrapBecome({ kind: 'none' }, command)).toEqual({ command });
  });
  it('uses sudo -n, and the wrapped command survives a real shell (fake sudo that just runs it)', () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-sudo-it's-"));
    writeFileSync(join(dir, 'sudo'), '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n', { mode: 0o755 });
    const target = join(dir, "it's $(here)");
    const wrapped = wrapBecome({ kind: 'sudo-nopasswd' }, sh`printf ok > ${target}`);
    expect(wrapped.command.text.startsWith('sudo -n -H -- sh -c ')).toBe(true);
    execFileSync('/bin/sh', ['-c', wrapped.command.text], { env: { ...process.env, PATH: `${dir}:${process.env['PATH']}` } });
    expect(readFileSync(target, 'utf8')).toBe('ok');
  });
  it('feeds the password as the first stdin line, never in the command', () => {
    const password = `p'a"s$(touch /tmp/pwned)\`x\``;
    const wrapped = wrapBecome({ kind: 'sudo-password', password }, command);
    expect(wrapped.stdinPrefix).toBe(`${password}\n`);
    expect(wrapped.command.text).not.toContain('pwned');
    expect(wrapped.command.text.startsWith("sudo -k -S -H -p '' -- sh -c ")).toBe(true);
  });
});

describe('atomic write command', () => {
  it('writes into a temp file beside the target and renames it', () => {
    const text = atomicWriteCommand('/etc/a b/c', { mode: 0o640, owner: 'root', group: 'adm', mkdirParents: true }).text;
    expect(text).toContain("mkdir -p -m 0755 '/etc/a b'");
    expect(text).toContain("mktemp '/etc/a b/.kcluster-write.XXXXXX'");
    expect(text).toContain('chmod 0640 "$t" && chown root:adm "$t"');
    expect(text).toContain(`mv -f -- "$t" '/etc/a b/c'`);
  });
  it('refuses relative paths', () => {
    expect(() => atomicWriteCommand('etc/x', { mode: 0o644 })).toThrow('absolute');
  });
});
