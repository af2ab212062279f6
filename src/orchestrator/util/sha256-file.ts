// sha256 of a local file, streamed (binaries are 100 MB; never read whole into memory).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}
