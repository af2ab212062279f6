// Every `-o, --output <format>` refuses a format it does not have (exit 2) instead of printing
// text with exit 0 (issue 44: `artifacts list -o yaml`).
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { quietCliContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/main.js';
import { runCli } from './support/run-cli.js';

const program = await buildProgram(quietCliContext(), []);
const walk = (command: Command, prefix: string[] = []): [string, Command][] =>
  command.commands.flatMap((c) => [[[...prefix, c.name()].join(' '), c] as [string, Command], ...walk(c, [...prefix, c.name()])]);

describe('--output', () => {
  it('has its formats as choices on every command that takes one', () => {
    const formats = walk(program).flatMap(([path, c]) => c.options.filter((o) => o.flags.includes('--output <format>')).map((o) => [path, o] as const));
    expect(formats.length).toBeGreaterThan(15);
    for (const [path, option] of formats) expect(option.argChoices, `kcluster ${path} ${option.flags}`).toEqual(expect.arrayContaining(['json']));
  });

  it('refuses a format it does not have, with exit 2', async () => {
    const r = await runCli(['artifacts', 'list', '-i', 'inventory.yaml', '-o', 'yaml']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are text, json.");
  });
});
