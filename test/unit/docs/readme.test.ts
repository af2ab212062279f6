// The README stays short and the docs stay connected: README.md is at most 8 KB, every relative
// link in README.md, CHANGELOG.md and docs/**/*.md points to a file (or folder) that exists,
// and a heading when it names one, and every page under docs/ can be reached from README.md by
// following links between those pages (directly or through an index page).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const README_MAX_BYTES = 8192;

interface Link {
  readonly line: number;
  readonly target: string;
}

/** Relative links of a Markdown text, outside code blocks and code spans (URLs and mail skipped). */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      const marker = opening[1]!;
      if (fence === undefined) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const text = raw.replace(/(`+)[^`]*?\1/g, '');
    const targets = [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)].map((m) => m[1]!),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** GitHub's anchors for a Markdown text's headings (duplicates get -1, -2, ...). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of markdown.split('\n')) {
    const opening = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (opening) {
      const marker = opening[1]!;
      if (fence === undefined) fence = marker[0]!.repeat(marker.length);
      else if (marker.startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Problems with a page's relative links: missing files, missing headings. */
export function brokenLinks(page: string, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): string[] {
  const problems: string[] = [];
  for (const { line, target } of relativeLinks(read(page))) {
    const [pathPart, anchor] = splitTarget(target);
    const file = pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart));
    const where = `${relative(ROOT, page)}:${line}: ${target}`;
    if (!existsSync(file)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (anchor !== undefined && file.endsWith('.md') && !headingAnchors(read(file)).has(anchor)) {
      problems.push(`${where}: no heading with the anchor #${anchor} in ${relative(ROOT, file)}`);
    }
  }
  return problems;
}

function splitTarget(target: string): [string, string | undefined] {
  const hash = target.indexOf('#');
  return hash < 0 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The pages reachable from `start` by links that stay among `pages`. */
export function reachable(start: string, pages: ReadonlySet<string>, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  while (queue.length > 0) {
    const page = queue.shift()!;
    for (const { target } of relativeLinks(read(page))) {
      const [pathPart] = splitTarget(target);
      if (pathPart === '') continue;
      const file = resolve(dirname(page), decodeURIComponent(pathPart));
      if (pages.has(file) && !seen.has(file)) {
        seen.add(file);
        queue.push(file);
      }
    }
  }
  return seen;
}

const README = join(ROOT, 'README.md');
const DOCS = markdownFiles(join(ROOT, 'docs'));
const CHECKED = [README, join(ROOT, 'CHANGELOG.md'), ...DOCS].filter((p) => existsSync(p));

describe('README.md and docs/', () => {
  it(`README.md is at most ${README_MAX_BYTES} bytes: the reference belongs in docs/`, () => {
    expect(statSync(README).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('has a docs/ tree', () => {
    expect(DOCS.length).toBeGreaterThan(0);
  });

  it('every relative link points to a file that exists, and to a heading that exists', () => {
    expect(CHECKED.flatMap((page) => brokenLinks(page))).toEqual([]);
  });

  it('every page under docs/ is reachable from README.md', () => {
    const pages = new Set([README, ...DOCS]);
    const seen = reachable(README, pages);
    expect(DOCS.filter((page) => !seen.has(page)).map((page) => relative(ROOT, page))).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const files: Record<string, string> = {
    '/r/README.md': 'See [a](docs/a.md) and `[not a link](nowhere.md)`.\n```\n[in code](gone.md)\n```\n[web](https://example.org/x.md)\n',
    '/r/docs/a.md': '# A page\n\n## Its `second` part: here\n\n[back](../README.md#a-missing-part) [b](b.md)\n',
    '/r/docs/b.md': '# B\n',
    '/r/docs/orphan.md': '# Nobody links here\n[a](a.md#its-second-part-here)\n',
  };
  const read = (p: string): string => files[p] ?? '';

  it('finds links outside code only, and skips URLs', () => {
    expect(relativeLinks(files['/r/README.md']!).map((l) => l.target)).toEqual(['docs/a.md']);
  });

  it('makes the anchors GitHub makes', () => {
    expect(headingAnchors(files['/r/docs/a.md']!)).toEqual(new Set(['a-page', 'its-second-part-here']));
    expect(headingAnchors('# Same\n# Same\n')).toEqual(new Set(['same', 'same-1']));
  });

  it('follows links to find reachable pages, and misses an orphan', () => {
    const seen = reachable('/r/README.md', new Set(Object.keys(files)), read);
    expect([...seen].sort()).toEqual(['/r/README.md', '/r/docs/a.md', '/r/docs/b.md']);
  });
});
