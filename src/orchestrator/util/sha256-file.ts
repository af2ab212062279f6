// sha256 of a local file: streamed for artifacts (binaries are 100 MB; never read whole into
// memory), or read at once for a small one (an inventory, which a run's journal and plan name).
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';

export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

/** A small file's sha256, read at once (an inventory): throws as readFileSync does. */
export function sha256SmallFile(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
