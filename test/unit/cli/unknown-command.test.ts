// An unknown command is refused with exit 2 and a did-you-mean, --help or not: commander alone
// printed the main help and exited 0 for `kcluster init --help`.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { unknownCommandIn } from '../../../src/cli/unknown-command.js';
import { runCli } from './support/run-cli.js';

function tree(): Command {
  const program = new Command('kcluster');
  program.command('apply');
  program.command('run').argument('<playbook>');
  program.command('certs').command('renew');
  program.commands.find((c) => c.name() === 'certs')!.command('check');
  return program;
}

describe('unknownCommandIn', () => {
  it('names the unknown word, the closest command and the known ones', () => {
    expect(unknownCommandIn(tree(), ['aply', '--help'])).toBe(
      "unknown command 'aply' (did you mean 'apply'?): the commands are apply, run, certs; kcluster --help describes them",
    );
    expect(unknownCommandIn(tree(), ['init'])).toBe("unknown command 'init': the commands are apply, run, certs; kcluster --help describes them");
  });
  it('checks sub-commands, and the name after help', () => {
    expect(unknownCommandIn(tree(), ['certs', 'renw', '-h'])).toBe(
      "unknown command 'certs renw' (did you mean 'certs renew'?): the certs commands are renew, check; kcluster certs --help describes them",
    );
    expect(unknownCommandIn(tree(), ['help', 'aply'])).toMatch(/^unknown command 'aply' \(did you mean 'apply'\?\)/);
  });
  it('lets known commands, operands, options and bare help through', () => {
    for (const args of [[], ['--help'], ['-V'], ['apply', '--help'], ['run', 'anything'], ['certs', 'renew', 'x'], ['help'], ['help', 'apply'], ['certs']]) {
      expect(unknownCommandIn(tree(), args), args.join(' ')).toBeUndefined();
    }
  });
});

describe('kcluster with an unknown command', () => {
  it('deploy --help exits 2 and prints no help', async () => {
    const r = await runCli(['deploy', '--help']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^kcluster: unknown command 'deploy': the commands are init, validate, config, run, .*; kcluster --help describes them\n$/);
  });
  it('aply --help exits 2 with did you mean apply', async () => {
    const r = await runCli(['aply', '--help']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command 'aply' (did you mean 'apply'?)");
  });
  it('a misspelt sub-command exits 2 with did you mean, even with --help', async () => {
    const r = await runCli(['certs', 'renw', '--help']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain("unknown command 'certs renw' (did you mean 'certs renew'?): the certs commands are check, renew");
  });
  it('a known command with --help still prints its help and exits 0', async () => {
    const r = await runCli(['apply', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: kcluster apply');
  });
});
