// sudo wrapping: the password travels on stdin only, whatever it contains.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wrapBecome } from '../../../src/orchestrator/ssh/become.js';
import { sh } from '../../../src/orchestrator/ssh/quote.js';

/** A stand-in sudo on PATH (fake sudo): records its stdin's first line, then runs the command. */
function fakeSudo(dir: string): NodeJS.ProcessEnv {
  writeFileSync(
    join(dir, 'sudo'),
    `#!/bin/sh\ncase " $* " in *" -S "*) IFS= read -r pw; printf '%s' "$pw" > ${JSON.stringify(join(dir, 'seen-password'))};; esac\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n`,
    { mode: 0o755 },
  );
  return { ...process.env, PATH: `${dir}:${process.env['PATH']}` };
}

describe('become wrapping', () => {
  const command = sh`cat > ${"/etc/it's here"}`;

  it('for root, runs the command under sh, whatever the login shell (bash and dash tried)', () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-sh-it's-"));
    const target = join(dir, "it's $(here) `x` ;");
    const wrapped = wrapBecome({ kind: 'none' }, sh`printf '%s' "$0" > ${target}`);
    expect(wrapped.stdinPrefix).toBeUndefined();
    for (const login of ['/bin/bash', '/bin/dash']) {
      execFileSync(login, ['-c', wrapped.command.text]);
      expect(readFileSync(target, 'utf8')).toBe('sh');
    }
  });

  it('passwordless: sudo -n, and the wrapped command survives a real shell (fake sudo)', () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-sudo-it's-"));
    const target = join(dir, "it's $(here) `x` ;");
    const wrapped = wrapBecome({ kind: 'sudo-nopasswd' }, sh`printf ok > ${target}`);
    expect(wrapped.command.text.startsWith('sudo -n -H -- sh -c ')).toBe(true);
    expect(wrapped.stdinPrefix).toBeUndefined();
    execFileSync('/bin/sh', ['-c', wrapped.command.text], { env: fakeSudo(dir) });
    expect(readFileSync(target, 'utf8')).toBe('ok');
  });

  it('with a password: it is the first stdin line and never in the command text', () => {
    const password = `p'a"s$(touch /tmp/pwned)\`id\` ;x`;
    const wrapped = wrapBecome({ kind: 'sudo-password', password }, command);
    expect(wrapped.stdinPrefix).toBe(`${password}\n`);
    expect(wrapped.command.text.startsWith("sudo -S -k -H -p '' -- sh -c ")).toBe(true);
    expect(wrapped.command.text).not.toContain(password);
    expect(wrapped.command.text).not.toContain('pwned');
    expect(wrapped.command.text).not.toContain('p\'a"s');
  });

  it('with a password: sudo consumes the password line, the command gets the rest of stdin (fake sudo)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-sudo-pw-'));
    const password = `it's "$(secret)"`;
    const out = join(dir, 'out');
    const wrapped = wrapBecome({ kind: 'sudo-password', password }, sh`cat > ${out}`);
    execFileSync('/bin/sh', ['-c', wrapped.command.text], { env: fakeSudo(dir), input: `${wrapped.stdinPrefix}caller data\n` });
    expect(readFileSync(join(dir, 'seen-password'), 'utf8')).toBe(password);
    expect(readFileSync(out, 'utf8')).toBe('caller data\n');
  });
});
