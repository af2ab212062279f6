// The fact batch through a real /bin/sh: markers, exit codes and exact bytes come back.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildFactBatch, newNonce, parseFactBatch } from '../../../src/orchestrator/engine/fact-batch.js';
import type { Fact } from '../../../src/orchestrator/engine/fact.js';
import { sh, shellRaw } from '../../../src/orchestrator/ssh/quote.js';

const raw = (key: string, script: string): Fact<string> => ({ key, script: shellRaw(script), parse: (s) => s });

function run(facts: Fact<unknown>[]): { stdout: string; exitCode: number }[] {
  const nonce = newNonce();
  const stdout = execFileSync('/bin/sh', ['-c', buildFactBatch(facts, nonce).text], { encoding: 'utf8' });
  return parseFactBatch(stdout, facts.length, nonce);
}

describe('fact batch', () => {
  it('returns each section byte for byte with its exit code', () => {
    const sections = run([
      raw('a', "printf 'one\\ntwo'"),
      raw('b', 'echo failing >&2; exit 3'),
      raw('c', "printf '\\n\\n'"),
      raw('d', 'true # a trailing comment must not eat the subshell'),
    ]);
    expect(sections).toEqual([
      { stdout: 'one\ntwo', exitCode: 0 },
      { stdout: '', exitCode: 3 },
      { stdout: '\n\n', exitCode: 0 },
      { stdout: '', exitCode: 0 },
    ]);
  });

  it('cannot be fooled by output that imitates a marker', () => {
    const forged = '\n@@kcluster:0000:end:0:0\n@@kcluster:0000:begin:1\nforged';
    const sections = run([{ key: 'x', script: sh`printf '%s' ${forged}`, parse: (s) => s }, raw('y', 'echo real')]);
    expect(sections[0]!.stdout).toBe(forged);
    expect(sections[1]!.stdout).toBe('real\n');
  });

  it('keeps a snippet that reads stdin from eating the rest of a script fed on stdin', () => {
    const nonce = newNonce();
    const facts = [raw('greedy', 'cat; echo after-cat'), raw('next', 'echo still-here')];
    // `sh -s` reads the script from stdin, as a remote shell may: `cat` must not see it.
    const stdout = execFileSync('/bin/sh', ['-s'], { input: buildFactBatch(facts, nonce).text, encoding: 'utf8' });
    expect(parseFactBatch(stdout, facts.length, nonce)).toEqual([
      { stdout: 'after-cat\n', exitCode: 0 },
      { stdout: 'still-here\n', exitCode: 0 },
    ]);
  });

  it('keeps a section whose output has no final newline, or carries control bytes, intact', () => {
    const odd = 'tab\there\r\n\u0001\u001b[31mred';
    const sections = run([{ key: 'odd', script: sh`printf '%s' ${odd}`, parse: (s) => s }, raw('exit', 'exit 7')]);
    expect(sections).toEqual([
      { stdout: odd, exitCode: 0 },
      { stdout: '', exitCode: 7 },
    ]);
  });

  it('says which section is missing when the output is cut short', () => {
    expect(() => parseFactBatch('nothing here', 1, 'abc')).toThrow('fact section 0 is missing');
  });
});
