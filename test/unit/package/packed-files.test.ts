// What `npm pack` ships: the licence package.json names, and the pages and examples the tool
// itself points users at (init's starter inventory names the inventory reference; errors and
// help name docs/users pages), so an installed kcluster's references resolve.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');

describe('the npm package', () => {
  it('ships LICENSE (Apache-2.0, as package.json says), the docs and the examples', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('Apache-2.0');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toContain('Apache License\n                           Version 2.0, January 2004');
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as {
      files: { path: string }[];
    }[];
    const files = new Set(packed!.files.map((f) => f.path));
    for (const path of [
      'LICENSE',
      'README.md',
      'CHANGELOG.md',
      'docs/users/inventory-reference.md',
      'docs/users/commands.md',
      'examples/minimal.yaml',
      'inventory.example.yaml',
    ])
      expect(files, path).toContain(path);
    // Never the tests, the lab's results or build caches.
    expect([...files].filter((f) => f.startsWith('test/') || f.startsWith('node_modules/') || f.startsWith('bench/results/'))).toEqual([]);
  });
});
