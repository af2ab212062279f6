// The command line a journal keeps and `kcluster status` offers to run again: the arguments as
// typed, with the value of any option whose name says it is a secret replaced (no kcluster
// option takes one today: passwords come from the environment; this keeps it so).
import { quoteWord } from '../../orchestrator/ssh/quote.js';

const SECRET_OPTION = /pass|token|secret|credential|private/i;
export const REDACTED = '<redacted>';

/** argv without the program (["apply", "-i", "inventory.yaml"]), secret-looking values replaced. */
export function journalArgv(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const long = /^(--[^=]+)=(.*)$/.exec(arg);
    if (long && SECRET_OPTION.test(long[1]!)) {
      out.push(`${long[1]}=${REDACTED}`);
    } else if (/^--./.test(arg) && SECRET_OPTION.test(arg) && i + 1 < args.length && !args[i + 1]!.startsWith('-')) {
      out.push(arg, REDACTED);
      i += 1;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** The command to type: `kcluster` and the arguments, each quoted for a POSIX shell where it needs it. */
export function commandLine(argv: readonly string[]): string {
  return ['kcluster', ...argv.map(quoteWord)].join(' ');
}
