// Runs one of the lab's shell scripts with its settings in the environment (never spliced
// into shell text), streaming its lines to a logger.
import { spawn } from 'node:child_process';

/** With `exclusiveLock`, the script runs under flock(1) on that file: one such script at a time on this machine. */
export function runScript(script: string, env: Record<string, string>, log: (line: string) => void, exclusiveLock?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const [command, args] = exclusiveLock === undefined ? ['bash', [script]] : ['flock', [exclusiveLock, 'bash', script]];
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4000);
      for (const line of text.split('\n')) if (line.trim()) log(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited ${code}:\n${tail.trim().split('\n').slice(-10).join('\n')}`))));
  });
}
