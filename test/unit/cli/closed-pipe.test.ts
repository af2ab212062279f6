// `kcluster ... | head -1`: the reader closes the pipe after one line; kcluster stops quietly,
// without an unhandled EPIPE and a stack trace on stderr. The real launcher (bin/kcluster.js),
// its standard output a pipe closed after the first chunk.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = resolve(import.meta.dirname, '../../../bin/kcluster.js');

describe('a closed output pipe', () => {
  it.each([['apply', '--help'], ['--help']])('kcluster %s %s | head -1 ends quietly', async (...args) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(err).toBe('');
    expect(code).toBe(0);
  });
});
