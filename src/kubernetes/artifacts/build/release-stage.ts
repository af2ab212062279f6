// A release stage of `kcluster bundle build --from-releases`: the component's binaries fetched
// from their official release locations (through cluster.artifacts.mirrors), each checked
// against the sha256 its release publishes, copied into the stage's output folder under the
// names the recipes give them, so the bundle is assembled from them exactly as from a build.
import { chmod, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReleaseFetcher } from '../release-fetcher.js';
import { VerifiedFiles } from '../verified-files.js';
import type { BuildStage } from './build-plan.js';
import { COMPONENT_CONTENTS } from './bundle-contents.js';

export interface ReleaseStageOptions {
  readonly mirrors: Readonly<Record<string, string>>;
  /** Downloads and extracted archives, shared by every stage and every build. */
  readonly downloadDir: string;
  readonly arch: string;
  readonly signal?: AbortSignal | undefined;
}

export function releaseStageProducer(stage: BuildStage, options: ReleaseStageOptions): (dir: string, log: (line: string) => void) => Promise<void> {
  return async (dir, log) => {
    const binaries = COMPONENT_CONTENTS[stage.name]?.binaries ?? [];
    if (binaries.length === 0) throw new Error(`${stage.id}: nothing of it is downloaded from releases`);
    const verified = new VerifiedFiles(options.downloadDir);
    const fetcher = new ReleaseFetcher(options.mirrors, options.downloadDir, verified, { signal: options.signal, log });
    try {
      for (const name of binaries) {
        const fetched = await fetcher.binary({ component: stage.name, name, version: stage.version, arch: options.arch, type: 'binary' });
        await copyFile(fetched.localPath, join(dir, name));
        await chmod(join(dir, name), 0o755);
        log(
          `${name}: ${fetched.location.url}${fetched.location.member !== undefined ? ` (${fetched.location.member})` : ''}, sha256 checked against ${fetched.location.checksumUrl}`,
        );
      }
    } finally {
      await verified.save();
    }
  };
}
