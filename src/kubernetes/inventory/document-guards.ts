// Limits on what an inventory document may be, checked before it is turned into data: a size,
// a nesting depth, aliases that do not refer to themselves and keys JavaScript would not drop
// (`__proto__`). Without them a hostile or broken file crashed validation (a circular alias
// reached JSON.stringify; 3,000 levels overflowed the parser's stack) instead of being
// reported with its place. The walk is iterative: it never recurses however deep the tree.
import { isAlias, isCollection, isPair, isScalar, type Document, type LineCounter, type Node } from 'yaml';
import type { Diagnostic } from './diagnostics.js';

/** Far above a real inventory (10,000 hosts measure about 0.6 MiB). */
export const MAX_INVENTORY_BYTES = 16 * 1024 * 1024;
/** Levels of maps and lists; kcluster's own keys use at most 6. */
export const MAX_NESTING = 64;
/** Anchors may be reused; a file with more aliases than this is refused (alias expansion bombs). */
export const MAX_ALIASES = 1000;
/** Keys that JavaScript objects would swallow or misread instead of keeping as data. */
const REFUSED_KEYS = new Set(['__proto__']);

export function sizeDiagnostic(bytes: number, file: string): Diagnostic | undefined {
  if (bytes <= MAX_INVENTORY_BYTES) return undefined;
  return {
    file,
    line: 1,
    col: 1,
    path: '',
    message: `the inventory is ${(bytes / 1024 / 1024).toFixed(1)} MiB; kcluster reads inventories of at most ${MAX_INVENTORY_BYTES / 1024 / 1024} MiB: split it, or move large values out of it`,
    severity: 'error',
  };
}

export function depthDiagnostic(file: string, line = 1, col = 1): Diagnostic {
  return {
    file,
    line,
    col,
    path: '',
    message: `the inventory nests maps and lists more than ${MAX_NESTING} levels deep: kcluster reads at most ${MAX_NESTING}`,
    severity: 'error',
  };
}

export function documentDiagnostics(doc: Document, lines: LineCounter, file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (offset: number | undefined, message: string): void => {
    const p = lines.linePos(offset ?? 0);
    out.push({ file, line: p.line, col: p.col, path: '', message, severity: 'error' });
  };
  // Each entry: a node and the anchors of the collections that contain it.
  const stack: { node: unknown; depth: number; open: readonly string[] }[] = [{ node: doc.contents, depth: 0, open: [] }];
  let aliases = 0;
  let tooDeep = false;
  while (stack.length > 0) {
    const { node, depth, open } = stack.pop()!;
    if (isAlias(node)) {
      aliases += 1;
      if (aliases === MAX_ALIASES + 1) at(node.range?.[0], `more than ${MAX_ALIASES} aliases (*name): kcluster refuses files that could expand without bound`);
      if (open.includes(node.source))
        at(node.range?.[0], `the alias *${node.source} refers to the node that contains it (&${node.source}): a value cannot include itself`);
      continue;
    }
    if (!isCollection(node)) continue;
    if (depth >= MAX_NESTING) {
      if (!tooDeep) {
        const d = depthDiagnostic(file);
        const p = lines.linePos((node as Node).range?.[0] ?? 0);
        out.push({ ...d, line: p.line, col: p.col });
      }
      tooDeep = true;
      continue;
    }
    const inside = (node as Node & { anchor?: string }).anchor ? [...open, (node as Node & { anchor?: string }).anchor!] : open;
    for (const item of node.items) {
      if (isPair(item)) {
        if (isScalar(item.key) && typeof item.key.value === 'string' && REFUSED_KEYS.has(item.key.value)) {
          at(item.key.range?.[0], `the key "${item.key.value}" is not allowed: JavaScript would drop it; rename it`);
        }
        if (isCollection(item.key) || isAlias(item.key)) stack.push({ node: item.key, depth: depth + 1, open: inside });
        stack.push({ node: item.value, depth: depth + 1, open: inside });
      } else {
        stack.push({ node: item, depth: depth + 1, open: inside });
      }
    }
  }
  return out;
}
