// YAML syntax problems as diagnostics, in words a person fixing an inventory can act on.
import type { LineCounter, YAMLError } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

/** The key written at `offset` (yaml's error range covers only its first character). */
function keyAt(text: string, offset: number): string {
  const m = /^(?:"([^"\n]*)"|'([^'\n]*)'|([^:\n]*?))\s*:/.exec(text.slice(offset));
  return (m?.[1] ?? m?.[2] ?? m?.[3] ?? '').trim();
}

function wording(error: YAMLError, text: string): string {
  switch (error.code) {
    case 'DUPLICATE_KEY':
      return `duplicate key "${keyAt(text, error.pos[0])}": a key may appear only once in a map`;
    case 'MULTIPLE_DOCS':
      return 'the inventory must be a single YAML document: remove this "---" and what follows it, or merge the documents';
    case 'TAB_AS_INDENT':
      return 'YAML syntax: tabs cannot indent YAML; use spaces';
    default:
      return `YAML syntax: ${error.message.split('\n')[0] ?? error.code}`;
  }
}

export function yamlDiagnostics(errors: readonly YAMLError[], text: string, lines: LineCounter, file: string): Diagnostic[] {
  return errors.map((error) => {
    const pos = lines.linePos(error.pos[0]);
    return { file, line: pos.line, col: pos.col, path: '', message: wording(error, text), severity: 'error' };
  });
}
