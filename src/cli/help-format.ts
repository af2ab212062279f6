// What every help page shows beyond commander's defaults: required options say "(required)",
// and each command ends with an "Examples:" section (help-examples.ts).
import { Help, type Command, type Option } from 'commander';
import { HELP_EXAMPLES } from './help-examples.js';

/** Set on the program before commands are added: sub-commands inherit it. */
export function markRequiredOptions(program: Command): void {
  program.configureHelp({
    optionDescription(this: Help, option: Option): string {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `${text} (required)` : text;
    },
  });
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds the examples of HELP_EXAMPLES to the program's own help and to every command below it that has some. */
export function addHelpExamples(program: Command): void {
  if (program.parent === null && HELP_EXAMPLES[''] !== undefined)
    program.addHelpText('after', `\nExamples:\n${HELP_EXAMPLES[''].map((e) => `  ${e}\n`).join('')}`);
  addCommandExamples(program);
}

function addCommandExamples(program: Command): void {
  for (const command of program.commands) {
    const examples = HELP_EXAMPLES[pathOf(command)];
    if (examples !== undefined) command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}\n`).join('')}`);
    addCommandExamples(command);
  }
}
