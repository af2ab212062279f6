// The controller's own tar (GNU or bsdtar, present on any Linux or macOS controller) reads
// archives: release tarballs, bundle tarballs, and the small JSON files inside image archives.
import { execFile } from 'node:child_process';
import { ArtifactError } from './artifact.js';

function tar(args: readonly string[], what: string, maxBuffer = 16 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('tar', [...args], { encoding: 'buffer', maxBuffer }, (error, stdout, stderr) => {
      if (error) {
        const detail = stderr.toString('utf8').trim().split('\n').slice(-3).join(' ') || error.message;
        reject(new ArtifactError(`${what}: tar ${args.join(' ')} failed: ${detail}`));
        return;
      }
      resolve(stdout);
    });
  });
}

/** One member's bytes (small files only: JSON manifests). */
export const readMember = (archive: string, member: string, what: string): Promise<Buffer> => tar(['-xOf', archive, member], what);

/** Extract `members` (or everything) into `dir`, which must exist. */
export async function extract(archive: string, dir: string, what: string, members: readonly string[] = []): Promise<void> {
  await tar(['-xf', archive, '-C', dir, '--no-same-owner', '--', ...members], what);
}

/** Names of the archive's members. */
export async function listMembers(archive: string, what: string): Promise<string[]> {
  return (await tar(['-tf', archive], what, 64 * 1024 * 1024))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}
