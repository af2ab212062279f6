// Positions of nodes in the parsed YAML document, so every diagnostic names file:line:col.
import { readFileSync } from 'node:fs';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';

export interface Position {
  readonly line: number;
  readonly col: number;
}

export class SourceMap {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The positions in an inventory file already loaded (for checks made after loading it). */
  static ofFile(file: string): SourceMap {
    const lines = new LineCounter();
    return new SourceMap(parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines, prettyErrors: false }), lines);
  }

  private at(offset: number | undefined): Position {
    if (offset === undefined) return { line: 1, col: 1 };
    const p = this.lines.linePos(offset);
    return { line: p.line, col: p.col };
  }

  private nodeAt(path: readonly (string | number)[]): { node: Node | undefined; parents: Node[] } {
    let node: unknown = this.doc.contents;
    const parents: Node[] = [];
    for (const segment of path) {
      if (isMap(node)) {
        parents.push(node);
        const pair = node.items.find((p: Pair) => isScalar(p.key) && p.key.value === segment);
        node = pair?.value ?? undefined;
      } else if (isSeq(node) && typeof segment === 'number') {
        parents.push(node);
        node = node.items[segment];
      } else {
        return { node: undefined, parents };
      }
    }
    return { node: node as Node | undefined, parents };
  }

  /** Where the value at this path starts (or its closest existing ancestor). */
  value(path: readonly (string | number)[]): Position {
    const { node, parents } = this.nodeAt(path);
    const target = node ?? parents[parents.length - 1];
    return this.at(target?.range?.[0]);
  }

  /** Where a key of the map at `path` is written, or undefined when that map has no such key. */
  keyIfWritten(path: readonly (string | number)[], key: string): Position | undefined {
    const { node } = this.nodeAt(path);
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
    return pair && isScalar(pair.key) ? this.at(pair.key.range?.[0]) : undefined;
  }

  /** Where a key of the map at `path` is written (for unknown keys). */
  key(path: readonly (string | number)[], key: string): Position {
    const { node } = this.nodeAt(path);
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
      if (pair && isScalar(pair.key)) return this.at(pair.key.range?.[0]);
    }
    return this.value(path);
  }
}

/**
 * "file:line:col: key" for an error about the inventory key at `path` (its value where it is
 * written; else, for a value derived from another key, `derivedFrom`'s), so that errors found
 * after loading (a state folder, a bundle) point where every other inventory error does.
 */
export function inventoryKeyLocation(file: string, path: readonly (string | number)[], derivedFrom?: readonly (string | number)[]): string {
  const map = SourceMap.ofFile(file);
  const parent = path.slice(0, -1);
  const last = path[path.length - 1];
  const written = typeof last === 'string' && map.keyIfWritten(parent, last) !== undefined;
  const at = written || derivedFrom === undefined ? map.value(path) : map.value(derivedFrom);
  const name = path.join('.');
  return `${file}:${at.line}:${at.col}: ${written || derivedFrom === undefined ? name : `${name} (not set: derived from ${derivedFrom.join('.')})`}`;
}
