// Every help page ends with real examples, and required options say so.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/main.js';
import type { CliContext } from '../../../src/cli/context.js';
import { runCli } from './support/run-cli.js';

const quiet = { write: () => true } as unknown as CliContext['stdout'];
const context: CliContext = {
  stdout: quiet,
  stderr: quiet,
  env: {},
  cwd: '/',
  interactive: false,
  signal: new AbortController().signal,
  setExitCode: () => undefined,
};

function paths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

const program = await buildProgram(context, []);
const all = paths(program);

describe('help pages', () => {
  it('walks every command and sub-command', () => {
    expect(all.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['init', 'apply', 'kubeconfig', 'etcd snapshot save', 'report timeline', 'lab up']));
  });

  it.each(all.map((p) => [p.join(' ')]))('kcluster %s --help ends with one to three examples of itself', async (path) => {
    const r = await runCli([...path.split(' '), '--help']);
    expect(r.code).toBe(0);
    const at = r.out.lastIndexOf('\nExamples:\n');
    expect(at, `no Examples: in kcluster ${path} --help`).toBeGreaterThan(0);
    const lines = r.out
      .slice(at)
      .split('\n')
      .filter((l) => /^ {2}(sudo )?kcluster /.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.some((l) => l.includes(`kcluster ${path.split(' ')[0]}`))).toBe(true);
  });

  it('kcluster --help ends with examples too: a first cluster, from init to apply', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const examples = r.out
      .slice(r.out.lastIndexOf('\nExamples:\n'))
      .split('\n')
      .filter((l) => l.startsWith('  kcluster '));
    expect(examples.map((l) => l.trim().split(' ')[1])).toEqual(['init', 'apply', 'apply']);
  });

  it('every example uses only options its command has', async () => {
    const byPath = new Map(all.map((p) => [p.join(' '), p]));
    // '' is `kcluster --help` itself.
    for (const path of ['', ...byPath.keys()]) {
      const r = await runCli([...(path === '' ? [] : path.split(' ')), '--help']);
      const examples = r.out
        .slice(r.out.lastIndexOf('\nExamples:\n'))
        .split('\n')
        .filter((l) => /^ {2}(sudo )?kcluster /.test(l));
      for (const example of examples) {
        const words = example
          .split('|')[0]!
          .trim()
          .replace(/^sudo /, '')
          .split(/\s+/)
          .slice(1);
        let command: Command = program;
        for (let sub = command.commands.find((c) => c.name() === words[0]); sub !== undefined; sub = command.commands.find((c) => c.name() === words[0])) {
          command = sub;
          words.shift();
        }
        const known = new Set(command.options.flatMap((o) => [o.short, o.long]).filter(Boolean));
        for (const flag of words.filter((w) => w.startsWith('-') && w !== '-')) expect(known.has(flag), `${example}: ${flag}`).toBe(true);
      }
    }
  });

  it('lists -i as required where it is, and apply without it exits 2 naming -i', async () => {
    const help = await runCli(['apply', '--help']);
    expect(help.out).toMatch(/-i, --inventory <file>\s+inventory file \(YAML\) \(required\)/);
    const bundle = await runCli(['bundle', 'build', '--help']);
    expect(bundle.out).not.toContain('(required)');
    const r = await runCli(['apply']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("required option '-i, --inventory <file>' not specified");
  });
});
