// Confirmation before a destructive command (reset, remove-node, etcd restore, certs renew):
// --yes confirms; otherwise a terminal is asked to type "yes"; without a terminal the command
// refuses (exit 2, nothing changed) rather than guess.
import { createInterface } from 'node:readline';
import type { CliContext } from './context.js';

function askLine(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    rl.question(question, (answer) => {
      rl.close();
      resolve(answer);
    });
    rl.on('SIGINT', () => {
      rl.close();
      resolve('');
    });
  });
}

/**
 * Undefined when the user confirmed `what` (a sentence saying exactly what will be destroyed);
 * otherwise why not, for the caller to report as bad input (exit 2, nothing changed).
 */
export async function refusalUnlessConfirmed(cli: CliContext, what: string, yes: boolean | undefined): Promise<string | undefined> {
  if (yes) return undefined;
  if (!cli.interactive) return `${what}: refusing without --yes (there is no terminal to ask for confirmation on); nothing was changed`;
  const answer = await askLine(`kcluster: ${what}\nType "yes" to go on: `);
  return answer.trim() === 'yes' ? undefined : 'not confirmed: nothing was changed';
}
