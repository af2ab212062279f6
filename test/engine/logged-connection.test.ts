// The debug-log decorator over a fake connection (local /bin/sh): the command, its label,
// exit code, duration and stderr tail are logged; stdin and file contents never are.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loggedConnection } from '../../src/orchestrator/engine/logged-connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { hostDir } from './support/harness.js';
import { LocalShellConnection } from './support/local-shell-connection.js';

describe('loggedConnection (fake connection: local /bin/sh)', () => {
  it('logs label, command, exit code, duration and stderr tail, never stdin', async () => {
    const lines: string[] = [];
    const inner = new LocalShellConnection('h1');
    const connection = loggedConnection(inner, (l) => lines.push(l));
    const secret = 'hunter2-token-value';
    const result = await connection.exec(sh`cat >/dev/null; echo oops >&2; exit 3`, { stdin: secret, label: 'task:join', become: true });
    expect(result.code).toBe(3);
    const log = lines.join('\n');
    expect(log).toContain('h1: exec [task:join] (become) (stdin: 19 bytes, not logged)\ncat >/dev/null; echo oops >&2; exit 3');
    expect(log).toMatch(/h1: exit 3 in \d+ ms \[task:join\]\nstderr: oops/);
    expect(log).not.toContain(secret);
    expect(connection.stats).toBe(inner.stats);
    expect(connection.stats.roundTrips).toBe(1);
  });

  it('logs a file write by path, size and mode, without its content', async () => {
    const lines: string[] = [];
    const connection = loggedConnection(new LocalShellConnection('h1'), (l) => lines.push(l));
    const path = join(hostDir('logged', 'h1'), 'key.pem');
    await connection.writeFile(path, 'PRIVATE KEY MATERIAL', { mode: 0o600, label: 'write key' });
    expect(readFileSync(path, 'utf8')).toBe('PRIVATE KEY MATERIAL');
    expect(lines[0]).toBe(`h1: write ${path} (20 bytes, mode 600, content not logged)`);
    expect(lines.join('\n')).not.toContain('PRIVATE KEY MATERIAL');
  });

  it('logs a command that throws, and rethrows it', async () => {
    const lines: string[] = [];
    const inner = new LocalShellConnection('h1');
    inner.beforeExec = () => {
      throw new Error('h1: unreachable: the SSH connection is closed');
    };
    const connection = loggedConnection(inner, (l) => lines.push(l));
    await expect(connection.exec(sh`true`, { label: 'facts:r' })).rejects.toThrow('connection is closed');
    expect(lines.at(-1)).toBe('h1: error [facts:r]: h1: unreachable: the SSH connection is closed');
  });
});
