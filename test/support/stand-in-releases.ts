// Stand-in release files laid out the way the official release pages do (binaries, archives
// with the official member paths, checksum files of each kind), under a folder a loopback
// release server serves (release-server.ts). The binaries are small stand-ins; the layout and
// the checksums are what the code under test reads.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ArtifactId } from '../../src/kubernetes/artifacts/artifact.js';
import { releaseLocation } from '../../src/kubernetes/artifacts/release-catalog.js';

export const sha256Of = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/**
 * Publishes every binary under `www` (mirrors map the official URLs into it); returns
 * "component/name" -> content. `realFile` gives a real binary to publish instead of a stand-in.
 */
export function publishStandInReleases(
  www: string,
  staging: string,
  binaries: readonly ArtifactId[],
  mirrors: Readonly<Record<string, string>>,
  realFile?: (id: ArtifactId) => string,
): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  const archives = new Map<string, { members: string[]; checksumUrl: string }>();
  for (const need of binaries) {
    const location = releaseLocation(need, mirrors);
    if (!location) throw new Error(`no release location for ${need.component}/${need.name}`);
    const body = realFile ? readFileSync(realFile(need)) : Buffer.from(`stand-in ${need.component}/${need.name} ${need.version}\n${'x'.repeat(20_000)}`);
    if (!realFile) contents.set(`${need.component}/${need.name}`, body);
    if (location.member === undefined) {
      const path = join(www, new URL(location.url).pathname);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, body, { mode: 0o755 });
      const checksumPath = join(www, new URL(location.checksumUrl).pathname);
      if (location.checksumUrl === `${location.url}.sha256`) writeFileSync(checksumPath, `${sha256Of(body)}\n`);
      else appendFileSync(checksumPath, `${sha256Of(body)}  ${location.url.split('/').pop()}\n`);
    } else {
      const dir = join(staging, sha256Of(location.url));
      mkdirSync(dirname(join(dir, location.member)), { recursive: true });
      writeFileSync(join(dir, location.member), body, { mode: 0o755 });
      const entry = archives.get(location.url) ?? { members: [], checksumUrl: location.checksumUrl };
      entry.members.push(location.member);
      archives.set(location.url, entry);
    }
  }
  for (const [url, { members, checksumUrl }] of archives) {
    const path = join(www, new URL(url).pathname);
    mkdirSync(dirname(path), { recursive: true });
    execFileSync('tar', ['-czf', path, '-C', join(staging, sha256Of(url)), ...members]);
    appendFileSync(join(www, new URL(checksumUrl).pathname), `${sha256Of(readFileSync(path))}  ${url.split('/').pop()}\n`);
  }
  return contents;
}
