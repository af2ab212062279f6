// The directory holding kcluster's package.json, found upward from this file: works from
// src/ (tests run TypeScript directly) and from dist/src/ (the compiled CLI).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown };
      if (pkg.name === 'kcluster') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('kcluster: cannot find its own package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
