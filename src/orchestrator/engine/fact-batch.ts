// Many facts, one remote command. Each fact's snippet runs in its own subshell (or, for the
// group scripts written for it, in the batch's shell: see FactGroup.inline); its stdout is
// framed by marker lines that carry a random nonce (so no file content can forge one) and
// the snippet's exit code. Parsing restores each fact's stdout byte for byte.
import { randomBytes } from 'node:crypto';
import { sh, shellJoin, shellRaw, type ShellCommand } from '../ssh/quote.js';

export interface FactSection {
  readonly stdout: string;
  readonly exitCode: number;
}

export function newNonce(): string {
  return randomBytes(12).toString('hex');
}

const begin = (nonce: string, i: number): string => `\n@@kcluster:${nonce}:begin:${i}\n`;
const endPrefix = (nonce: string, i: number): string => `\n@@kcluster:${nonce}:end:${i}:`;

/** One section of a batch: a fact's script, or a group script (inline: no subshell). */
export interface BatchScript {
  readonly script: ShellCommand;
  readonly inline?: boolean;
}

export function buildFactBatch(sections: readonly BatchScript[], nonce: string): ShellCommand {
  const parts = sections.map((section, i) =>
    shellJoin(
      [
        sh`printf '%s' ${begin(nonce, i)}`,
        section.inline === true
          ? sh`{ ${section.script}
} </dev/null`
          : sh`( ${section.script}
) </dev/null`,
        sh`printf '%s%s\\n' ${endPrefix(nonce, i)} "$?"`,
      ],
      '\n',
    ),
  );
  return shellJoin([shellRaw('LC_ALL=C; export LC_ALL'), ...parts], '\n');
}

/** Cut the batch's stdout back into one section per fact (in the order given to build). */
export function parseFactBatch(stdout: string, count: number, nonce: string): FactSection[] {
  const sections: FactSection[] = [];
  let cursor = 0;
  for (let i = 0; i < count; i++) {
    const open = begin(nonce, i);
    const start = stdout.indexOf(open, cursor);
    if (start < 0) throw new Error(`fact section ${i} is missing from the batch output`);
    const close = endPrefix(nonce, i);
    const end = stdout.indexOf(close, start + open.length);
    if (end < 0) throw new Error(`fact section ${i} has no end marker (the batch was cut short)`);
    const codeEnd = stdout.indexOf('\n', end + close.length);
    const exitCode = Number(stdout.slice(end + close.length, codeEnd < 0 ? undefined : codeEnd));
    sections.push({ stdout: stdout.slice(start + open.length, end), exitCode: Number.isFinite(exitCode) ? exitCode : 255 });
    cursor = codeEnd < 0 ? stdout.length : codeEnd;
  }
  return sections;
}
