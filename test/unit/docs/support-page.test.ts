// docs/users/support.md stays true to the repository: every test file and every results file
// it names as proof exists, and every Kubernetes minor it says kcluster knows is the code's.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KUBERNETES_RELEASES } from '../../../src/kubernetes/artifacts/component-versions.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const PAGE_PATH = 'docs/users/support.md';
const PAGE = readFileSync(join(ROOT, PAGE_PATH), 'utf8');

describe('the support page', () => {
  it('names only test files that exist', () => {
    const named = [...PAGE.matchAll(/`(test\/[^`\s]+\.(?:test\.ts|sh))`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(8);
    expect(named.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  it('links only results files that exist', () => {
    const links = [...PAGE.matchAll(/\]\(([^)]+\.md)\)/g)].map((m) => resolve(ROOT, dirname(PAGE_PATH), m[1]!));
    expect(links.length).toBeGreaterThan(3);
    expect(links.filter((file) => !existsSync(file))).toEqual([]);
  });

  it('names the Kubernetes minors kcluster knows', () => {
    const minors = [...new Set(KUBERNETES_RELEASES.map((v) => v.replace(/^v(\d+\.\d+)\..*$/, '$1')))].sort();
    expect(PAGE).toContain(`Kubernetes minors other than ${minors.slice(0, -1).join(', ')} and ${minors.at(-1)}`);
  });
});
