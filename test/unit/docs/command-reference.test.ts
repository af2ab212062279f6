// The command reference page is generated from the CLI's definitions: the committed page must
// be what the generator renders now, and it names every command and every visible option.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_REFERENCE_COMMAND, COMMAND_REFERENCE_PAGE, commandReference } from '../../../src/cli/command-reference.js';
import { quietCliContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/main.js';

const program = await buildProgram(quietCliContext(), []);
const page = commandReference(program);

function walk(command: Command, prefix: string[] = []): [string, Command][] {
  return command.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [[[...prefix, c.name()].join(' '), c] as [string, Command], ...walk(c, [...prefix, c.name()])]);
}

describe(COMMAND_REFERENCE_PAGE, () => {
  it(`is what the CLI renders now (run \`${COMMAND_REFERENCE_COMMAND}\` after changing a command)`, () => {
    if (readFileSync(COMMAND_REFERENCE_PAGE, 'utf8') !== page)
      expect.fail(`${COMMAND_REFERENCE_PAGE} is out of date with the CLI: run \`${COMMAND_REFERENCE_COMMAND}\` and commit the page`);
  });

  it('has a section for every command with each of its visible options', () => {
    const commands = walk(program);
    expect(commands.length).toBeGreaterThan(30);
    for (const [path, command] of commands) {
      const start = page.indexOf(`\n## kcluster ${path}\n`);
      expect(start, path).toBeGreaterThan(0);
      const end = page.indexOf('\n## ', start + 1);
      const section = page.slice(start, end === -1 ? undefined : end);
      for (const option of command.options.filter((o) => !o.hidden)) expect(section, `${path} ${option.flags}`).toContain(`\`${option.flags}\``);
    }
    // The options the hand-written page had missed (issue 44).
    expect(page).toMatch(/## kcluster apply\n[\s\S]*`--list-tags`/);
    expect(page).toMatch(/## kcluster report timeline\n[\s\S]*`-o, --output <format>`/);
  });

  it('is the same on any machine: no home folder or working directory in it', () => {
    expect(page).not.toContain(process.env['HOME'] ?? '/root');
    expect(page).not.toContain(process.cwd());
  });
});

describe('docs/users/commands.md', () => {
  it('names every visible option of every command somewhere (the guide may group them; the reference lists each)', () => {
    const guide = readFileSync('docs/users/commands.md', 'utf8');
    const missing = walk(program).flatMap(([path, command]) =>
      command.options.filter((o) => !o.hidden && o.long !== undefined && !guide.includes(o.long)).map((o) => `${path} ${o.long}`),
    );
    expect(missing).toEqual([]);
  });
});
