// The bucket policy examples/scheduled-snapshots-bucket-policy.json gives the control planes'
// upload credential, filled in for a test store: the tests limit their uploader user with the
// very file the docs point operators to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './test-lab.js';

export function snapshotUploaderPolicy(bucket: string, prefix: string, uploader: string): string {
  return readFileSync(join(repoRoot, 'examples', 'scheduled-snapshots-bucket-policy.json'), 'utf8')
    .replaceAll('{bucket}', bucket)
    .replaceAll('{prefix}', prefix)
    .replaceAll('{uploader}', uploader);
}
