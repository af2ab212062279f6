// Choosing the become mode right after connecting, over a fake connection that plays sudo.
import { describe, expect, it } from 'vitest';
import { detectBecome } from '../../../src/orchestrator/ssh/detect-become.js';
import { wrapBecome, type BecomeMode } from '../../../src/orchestrator/ssh/become.js';
import type { ExecOptions, ExecResult } from '../../../src/orchestrator/ssh/connection.js';
import type { ShellCommand } from '../../../src/orchestrator/ssh/quote.js';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';

/** A fake connection: `sudo -n` succeeds only when passwordless; `-S` accepts only `password`. */
function fakeConnection(sudo: { passwordless: boolean; password?: string; missing?: boolean }) {
  let mode: BecomeMode = { kind: 'none' };
  const seen: { text: string; stdin: string }[] = [];
  return {
    seen,
    setBecomeMode(next: BecomeMode) {
      mode = next;
    },
    async exec(command: ShellCommand, options: ExecOptions = {}): Promise<ExecResult> {
      const wrapped = options.become ? wrapBecome(mode, command) : { command };
      const stdin = `${wrapped.stdinPrefix ?? ''}${options.stdin?.toString() ?? ''}`;
      seen.push({ text: wrapped.command.text, stdin });
      const result = (code: number, stderr = ''): ExecResult => ({ code, stdout: '', stderr, durationMs: 1 });
      if (sudo.missing) return result(127, 'sh: 1: sudo: not found');
      if (wrapped.command.text.startsWith('sudo -n')) return sudo.passwordless ? result(0) : result(1, 'sudo: a password is required');
      if (wrapped.command.text.startsWith('sudo -S'))
        return stdin.split('\n')[0] === sudo.password ? result(0) : result(1, 'sudo: 1 incorrect password attempt');
      return result(0);
    },
  };
}

function hostWith(user: string, become: HostSettings['become']): HostSettings {
  return { name: 'web1', ssh: { address: '10.0.0.1', port: 22, user, agent: false }, become, roles: ['worker'], vars: {}, source: 'inv.yaml:3:5' };
}

const password = `it's "$(rm -rf /)" \`x\``;

describe('become detection (fake connection)', () => {
  it('root needs no wrapper and no probe', async () => {
    const c = fakeConnection({ passwordless: false });
    expect(await detectBecome(c, hostWith('root', { enabled: true, method: 'sudo' }), {})).toEqual({ kind: 'none' });
    expect(c.seen).toEqual([]);
  });

  it('passwordless sudo when `sudo -n true` works', async () => {
    const c = fakeConnection({ passwordless: true });
    expect(await detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo' }), {})).toEqual({ kind: 'sudo-nopasswd' });
    expect(c.seen.map((s) => s.text)).toEqual(['sudo -n true']);
  });

  it('sudo with the password from the named variable, checked once, never in a command', async () => {
    const c = fakeConnection({ passwordless: false, password });
    const mode = await detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo', passwordEnv: 'SUDO_PW' }), { SUDO_PW: password });
    expect(mode).toEqual({ kind: 'sudo-password', password });
    expect(c.seen).toHaveLength(2);
    expect(c.seen[1]!.stdin).toBe(`${password}\n`);
    for (const s of c.seen) expect(s.text).not.toContain('rm -rf');
  });

  it('explains what to configure when sudo wants a password and none is configured', async () => {
    const c = fakeConnection({ passwordless: false });
    await expect(detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo' }), {})).rejects.toThrow(
      'web1: unreachable: sudo asks debian for a password: set become.passwordEnv to the NAME of a variable holding it, or allow passwordless sudo for debian',
    );
    await expect(detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo', passwordEnv: 'SUDO_PW' }), {})).rejects.toThrow(
      '$SUDO_PW (become.passwordEnv) is not set',
    );
  });

  it('a wrong password fails at connect time without showing it', async () => {
    const c = fakeConnection({ passwordless: false, password: 'right' });
    const error = await detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo', passwordEnv: 'SUDO_PW' }), { SUDO_PW: password }).catch(
      (e: Error) => e,
    );
    expect((error as Error).message).toBe('web1: unreachable: sudo rejected the password in $SUDO_PW for user debian (sudo: 1 incorrect password attempt)');
  });

  it('no sudo on the host', async () => {
    const c = fakeConnection({ passwordless: false, missing: true });
    await expect(detectBecome(c, hostWith('debian', { enabled: true, method: 'sudo' }), {})).rejects.toThrow('sudo is not installed');
  });
});
