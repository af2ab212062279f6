// The command reference page (docs/users/command-reference.md), rendered from the CLI's own
// definitions: every command and sub-command with its usage, arguments, options (defaults,
// choices, required) and the examples its --help ends with. Generated so it cannot drift from
// the tool: `npm run docs:commands` writes it, a unit test holds the committed page to it.
import { Help, type Command } from 'commander';
import { HELP_EXAMPLES } from './help-examples.js';

export const COMMAND_REFERENCE_PAGE = 'docs/users/command-reference.md';
export const COMMAND_REFERENCE_COMMAND = 'npm run docs:commands';

const help = new Help();

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Markdown table cell: no pipe or newline breaks the row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function optionNotes(option: ReturnType<Help['visibleOptions']>[number]): string {
  const notes: string[] = [];
  if (option.mandatory) notes.push('required');
  if (option.argChoices) notes.push(`one of ${option.argChoices.map((c) => `\`${c}\``).join(', ')}`);
  if (option.defaultValue !== undefined && option.defaultValue !== false)
    notes.push(`default \`${Array.isArray(option.defaultValue) ? option.defaultValue.join(',') : String(option.defaultValue)}\``);
  return notes.join('; ');
}

function commandSection(command: Command): string[] {
  const path = pathOf(command);
  const lines = [`## kcluster ${path}`, '', cell(command.description()), '', '```', `kcluster ${path} ${command.usage()}`.trimEnd(), '```', ''];
  const args = help.visibleArguments(command);
  if (args.length > 0) {
    lines.push('| argument | what it is |', '|---|---|');
    for (const arg of args) lines.push(`| \`${arg.name()}\`${arg.required ? '' : ' (optional)'} | ${cell(arg.description)} |`);
    lines.push('');
  }
  const options = help.visibleOptions(command).filter((o) => o.long !== '--help');
  if (options.length > 0) {
    lines.push('| option | what it does | notes |', '|---|---|---|');
    for (const option of options) lines.push(`| \`${option.flags}\` | ${cell(option.description)} | ${optionNotes(option)} |`);
    lines.push('');
  }
  const subcommands = help.visibleCommands(command).filter((c) => c.name() !== 'help');
  if (subcommands.length > 0) {
    lines.push(`Sub-commands: ${subcommands.map((c) => `[${c.name()}](#${anchorOf(`kcluster ${path} ${c.name()}`)})`).join(', ')}.`, '');
  }
  const examples = HELP_EXAMPLES[path];
  if (examples !== undefined) lines.push('```sh', ...examples, '```', '');
  return lines;
}

/** GitHub's heading anchors: lower case, spaces to dashes, other punctuation dropped. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

function allCommands(command: Command): Command[] {
  return command.commands.filter((c) => c.name() !== 'help').flatMap((c) => [c, ...allCommands(c)]);
}

export function commandReference(program: Command): string {
  const commands = allCommands(program);
  const lines = [
    '# Command reference',
    '',
    `<!-- Generated from the CLI's definitions by \`${COMMAND_REFERENCE_COMMAND}\`; a test fails when it is out of date. Do not edit by hand. -->`,
    '',
    'Every command and option kcluster has, as its `--help` shows them. What the commands do and',
    'when to use which: [Commands](commands.md). Exit codes: [exit codes](exit-codes.md).',
    '',
    ...commands.map((c) => `- [kcluster ${pathOf(c)}](#${anchorOf(`kcluster ${pathOf(c)}`)})`),
    '',
    ...commands.flatMap(commandSection),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
