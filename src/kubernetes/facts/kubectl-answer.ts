// What a fact that asks the API through kubectl on a control plane reads: the answer, or that
// the API server did not answer (its last lines, to say why). One shape for every such fact, so
// that each says the same thing the same way.
import { sh, type ShellCommand } from '../../orchestrator/ssh/quote.js';

export type KubectlAnswer = { readonly reachable: true; readonly text: string } | { readonly reachable: false; readonly detail: string };

/** Runs `command` and prints "ok" and its output, or "unreachable" and the last two lines of what it printed. */
export function kubectlAnswerScript(command: ShellCommand): ShellCommand {
  return sh`out=$(${command} 2>&1) && { echo ok; printf '%s\\n' "$out"; } || { echo unreachable; printf '%s\\n' "$out" | tail -n 2; }`;
}

/** Parses what kubectlAnswerScript printed; `what` names the answer in the error for anything else. */
export function parseKubectlAnswer(stdout: string, what: string): KubectlAnswer {
  const [first = '', ...rest] = stdout.trim().split('\n');
  if (first === 'unreachable') return { reachable: false, detail: rest.join(' ').slice(0, 300) };
  if (first !== 'ok') throw new Error(`unexpected output for ${what}: "${first.slice(0, 80)}"`);
  return { reachable: true, text: rest.join('\n') };
}
