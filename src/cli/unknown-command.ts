// A word where a command is expected that names none: refused before commander parses, since
// commander prints the main help and exits 0 for `kcluster init --help` (the help flag wins
// over the unknown command), which reads as if `init` existed.
import type { Command } from 'commander';
import { closest } from '../orchestrator/inventory/suggest.js';

/** Pure: why `args` name no command (with a did-you-mean), or undefined when they do or need not. */
export function unknownCommandIn(program: Command, args: readonly string[]): string | undefined {
  let command = program;
  const path: string[] = [];
  for (const arg of args) {
    // Options end the walk (commander reports unknown ones); a command without sub-commands
    // takes the rest as its operands.
    if (arg.startsWith('-') || command.commands.length === 0) return undefined;
    // `help NAME` (commander's help command) names a command to describe: check NAME too.
    if (arg === 'help') continue;
    const sub = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub === undefined) return refusal(command, path, arg);
    command = sub;
    path.push(arg);
  }
  return undefined;
}

function refusal(parent: Command, path: readonly string[], word: string): string {
  const names = parent.commands.map((c) => c.name());
  const guess = closest(word, names);
  const prefix = path.length > 0 ? `${path.join(' ')} ` : '';
  const whose = path.length > 0 ? `the ${path.join(' ')} commands` : 'the commands';
  return `unknown command '${prefix}${word}'${guess ? ` (did you mean '${prefix}${guess}'?)` : ''}: ${whose} are ${names.join(', ')}; kcluster ${prefix}--help describes them`;
}
