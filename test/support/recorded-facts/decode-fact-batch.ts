// Reading a fact batch (buildFactBatch's script) back into its sections: the nonce of its
// markers and, per section, the script it runs and whether it runs inline (a group script).
// The section frames are rebuilt with the engine's own builder and compared, so a change to
// the batch's format fails here loudly instead of replaying something else.
import { buildFactBatch } from '../../../src/orchestrator/engine/fact-batch.js';
import { shellRaw } from '../../../src/orchestrator/ssh/quote.js';

export interface BatchSection {
  readonly script: string;
  readonly inline: boolean;
}

export interface DecodedBatch {
  readonly nonce: string;
  readonly sections: readonly BatchSection[];
}

const HEAD = 'LC_ALL=C; export LC_ALL\n';

/** The batch's sections, or undefined when `text` is not a fact batch. */
export function decodeFactBatch(text: string): DecodedBatch | undefined {
  if (!text.startsWith(HEAD)) return undefined;
  const nonce = /@@kcluster:([0-9a-f]+):begin:0\n/.exec(text)?.[1];
  if (nonce === undefined) return undefined;
  const sections: BatchSection[] = [];
  let rest = text.slice(HEAD.length);
  for (let i = 0; rest.length > 0; i++) {
    // The frame of section i around a placeholder script, cut into what precedes and follows it.
    const [open, close] = frame(nonce, i);
    const inline = rest.startsWith(`${open}{ `);
    const opener = `${open}${inline ? '{ ' : '( '}`;
    const closer = `\n${inline ? '}' : ')'}${close}`;
    if (!rest.startsWith(opener)) throw new Error(`fact batch section ${i}: unexpected text ${JSON.stringify(rest.slice(0, 80))}`);
    const end = rest.indexOf(closer, opener.length);
    if (end < 0) throw new Error(`fact batch section ${i}: no end`);
    sections.push({ script: rest.slice(opener.length, end), inline });
    rest = rest.slice(end + closer.length);
    if (rest.startsWith('\n')) rest = rest.slice(1);
  }
  return { nonce, sections };
}

function frame(nonce: string, i: number): [string, string] {
  const marker = '\u0000SCRIPT\u0000';
  const one = buildFactBatch(
    Array.from({ length: i + 1 }, () => ({ script: shellRaw(marker) })),
    nonce,
  ).text;
  const section = one.slice(one.lastIndexOf(`printf '%s' '\n@@kcluster:${nonce}:begin:${i}`));
  const at = section.indexOf(marker);
  // "( " or "{ " precede the script, "\n)" or "\n}" follow it: keep them out of the frame.
  return [section.slice(0, at - 2), section.slice(at + marker.length + 2)];
}

/** What the batch prints when each section printed `outputs[i]`: the engine's parser reads it back. */
export function encodeBatchOutput(nonce: string, outputs: readonly { stdout: string; exitCode: number }[]): string {
  return outputs.map((o, i) => `\n@@kcluster:${nonce}:begin:${i}\n${o.stdout}\n@@kcluster:${nonce}:end:${i}:${o.exitCode}\n`).join('');
}
