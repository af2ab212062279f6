// Runs a fact's real script with the local /bin/sh, the way the engine wraps it on a host
// (a subshell with stdin closed), then hands stdout and the exit code to its parser.
import { spawnSync } from 'node:child_process';
import type { Fact } from '../../../../src/orchestrator/engine/fact.js';

export function runFactScript(fact: Fact<unknown>): { stdout: string; code: number } {
  const result = spawnSync('/bin/sh', ['-c', `LC_ALL=C; export LC_ALL\n( ${fact.script.text}\n) </dev/null`], { encoding: 'utf8', cwd: process.cwd() });
  return { stdout: result.stdout, code: result.status ?? 255 };
}

export function readFactLocally<T>(fact: Fact<T>): T {
  const { stdout, code } = runFactScript(fact as Fact<unknown>);
  return fact.parse(stdout, code);
}
