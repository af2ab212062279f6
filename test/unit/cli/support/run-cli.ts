// The CLI as a function for tests: main() with captured stdout and stderr, no process exit.
import { PassThrough } from 'node:stream';
import { main } from '../../../../src/cli/main.js';

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = { SSH_AUTH_SOCK: '/x' }, cwd?: string): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(['node', 'kcluster', ...args], { stdout, stderr, env, ...(cwd !== undefined ? { cwd } : {}), signal: new AbortController().signal });
  return { code, out, err };
}
