// The sha256 of a chart as kcluster finds it on the controller: of the archive's bytes, or of a
// folder's files (relative path and content of each, in sorted order), so that any change to
// the chart, not only to its version, is an upgrade.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

export async function chartDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  if (!(await stat(path)).isDirectory()) return hash.update(await readFile(path)).digest('hex');
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of files) {
    const content = await readFile(file);
    hash.update(`${relative(path, file)}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}
