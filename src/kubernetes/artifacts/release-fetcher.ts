// Fetching a binary from its official release location (through cluster.artifacts.mirrors):
// the published checksum file read once per URL, the download verified against it (retried
// and resumed when cut, each retry said through `log`), an archive member extracted once.
// Used by `source: release` at apply time and by `kcluster bundle build --from-releases`.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ArtifactError, artifactLabel, type ArtifactId } from './artifact.js';
import { downloadVerified, fetchText } from './http-download.js';
import type { RetryOptions, RetryPolicy } from './http-retry.js';
import { extract } from './local-tar.js';
import { checksumFor, releaseLocation, WITHOUT_PUBLISHED_CHECKSUMS, type ReleaseLocation } from './release-catalog.js';
import type { VerifiedFiles } from './verified-files.js';

export interface FetchedBinary {
  /** The verified binary on the controller (inside the download cache). */
  readonly localPath: string;
  readonly location: ReleaseLocation;
}

export class ReleaseFetcher {
  private readonly checksumFiles = new Map<string, Promise<string>>();
  private readonly downloads = new Map<string, Promise<string>>();

  constructor(
    private readonly mirrors: Readonly<Record<string, string>>,
    private readonly cacheDir: string,
    private readonly verified: VerifiedFiles,
    private readonly options: {
      readonly signal?: AbortSignal | undefined;
      readonly log?: ((line: string) => void) | undefined;
      /** Attempts and pauses for transient failures (tests make them short). */
      readonly retry?: RetryPolicy | undefined;
    } = {},
  ) {}

  private get retrying(): RetryOptions {
    return { signal: this.options.signal, retry: this.options.retry, onRetry: this.options.log };
  }

  /** Whether releases publish this component with checksums kcluster can verify. */
  static publishes(id: Pick<ArtifactId, 'component' | 'name' | 'version' | 'arch' | 'type'>): boolean {
    return !(WITHOUT_PUBLISHED_CHECKSUMS as readonly string[]).includes(id.component) && releaseLocation(id, {}) !== undefined;
  }

  async binary(id: ArtifactId): Promise<FetchedBinary> {
    const what = artifactLabel(id);
    if ((WITHOUT_PUBLISHED_CHECKSUMS as readonly string[]).includes(id.component)) {
      throw new ArtifactError(`${what}: its releases publish no checksums, so kcluster cannot verify a download: use source: bundle for it`);
    }
    const location = releaseLocation(id, this.mirrors);
    if (!location) {
      const hint =
        id.component === 'kcluster-apiproxy'
          ? ' (it balances several control planes when no load balancer is given: set cluster.apiEndpoint.host to yours, or use source: bundle)'
          : ': use source: bundle';
      throw new ArtifactError(`${what}: kcluster knows no release location for ${id.component}${hint}`);
    }
    let checksums = this.checksumFiles.get(location.checksumUrl);
    if (!checksums) {
      checksums = fetchText(location.checksumUrl, this.retrying).catch((error: unknown) => {
        throw new ArtifactError(`${what}: cannot read the published checksum file ${location.checksumUrl}: ${(error as Error).message}`);
      });
      this.checksumFiles.set(location.checksumUrl, checksums);
    }
    const expected = checksumFor(await checksums, location.url);
    if (!expected) throw new ArtifactError(`${what}: ${location.checksumUrl} lists no sha256 for ${location.url}`);
    const file = await this.download(location.url, expected, what);
    if (location.member === undefined) return { localPath: file, location };
    const dir = join(this.cacheDir, 'extracted', expected);
    const localPath = join(dir, location.member);
    if (!existsSync(localPath)) {
      const temp = `${dir}.${randomUUID()}.partial`;
      await rm(temp, { recursive: true, force: true });
      await mkdir(temp, { recursive: true });
      await extract(file, temp, `${what} (${location.url})`, [location.member]);
      await mkdir(dirname(localPath), { recursive: true });
      await rename(join(temp, location.member), localPath);
      await rm(temp, { recursive: true, force: true });
    }
    return { localPath, location };
  }

  private download(url: string, sha256: string, what: string): Promise<string> {
    let pending = this.downloads.get(url);
    if (!pending) {
      const dest = join(this.cacheDir, 'downloads', sha256);
      pending = (async () => {
        if (existsSync(dest) && (await this.verified.sha256(dest)).sha256 === sha256) return dest;
        const started = Date.now();
        const result = await downloadVerified(url, dest, sha256, what, this.retrying);
        this.options.log?.(
          `downloaded ${url} (${(result.bytes / 1e6).toFixed(1)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s${result.resumedFrom > 0 ? `, resumed at ${result.resumedFrom} bytes` : ''})`,
        );
        return dest;
      })();
      this.downloads.set(url, pending);
    }
    return pending;
  }
}
