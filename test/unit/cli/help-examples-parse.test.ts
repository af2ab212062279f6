// Every example of every --help, the ones that need a lab included, parsed by the CLI's own
// definitions: the command exists, every option is one it has with a value it accepts, and the
// arguments are the ones it takes. The actions are replaced by a recorder, so nothing runs; the
// examples that need no host also run for real (help-examples-run.test.ts).
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { quietCliContext } from '../../../src/cli/context.js';
import { HELP_EXAMPLES } from '../../../src/cli/help-examples.js';
import { buildProgram } from '../../../src/cli/main.js';

const every = (command: Command): Command[] => command.commands.flatMap((c) => [c, ...every(c)]);
const pathOf = (command: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** Each `kcluster ...` of an example line: `sudo` dropped, a `> FILE` redirect cut, each side of a pipe. */
function invocations(example: string): string[][] {
  return example
    .split(' | ')
    .map((part) =>
      part
        .split(' > ')[0]!
        .trim()
        .replace(/^sudo /, ''),
    )
    .filter((part) => part.startsWith('kcluster '))
    .map((part) => part.split(/\s+/).slice(1));
}

/** Parse one invocation with every action a recorder: the command path it reached, or the CLI's complaint. */
async function parse(args: readonly string[]): Promise<{ command?: string; error?: string }> {
  let errors = '';
  const program = await buildProgram(quietCliContext(), args);
  program.configureOutput({ writeErr: (text) => (errors += text), writeOut: () => undefined });
  let reached: string | undefined;
  for (const command of every(program)) {
    command.configureOutput({ writeErr: (text) => (errors += text), writeOut: () => undefined }).exitOverride();
    command.action(() => {
      reached = pathOf(command);
    });
  }
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    return { error: errors || (error as Error).message };
  }
  return reached === undefined ? { error: `no command ran: ${errors}` } : { command: reached };
}

const examples = Object.entries(HELP_EXAMPLES).flatMap(([path, lines]) => lines.map((line) => [path, line] as const));

describe('every help example parses as the CLI defines it', () => {
  it.each(examples)('kcluster %s --help: %s', async (_path, example) => {
    const calls = invocations(example);
    expect(calls.length, 'an example runs kcluster').toBeGreaterThan(0);
    for (const args of calls) expect((await parse(args)).error, example).toBeUndefined();
  });

  it("each command's examples run that command (a group's, one of its sub-commands)", async () => {
    for (const [path, lines] of Object.entries(HELP_EXAMPLES)) {
      if (path === '') continue;
      const reached = await Promise.all(lines.flatMap(invocations).map(async (args) => (await parse(args)).command ?? ''));
      expect(
        reached.some((command) => `${command} `.startsWith(`${path} `)),
        `kcluster ${path} --help: its examples run ${reached.join(', ')}`,
      ).toBe(true);
    }
  });
});
