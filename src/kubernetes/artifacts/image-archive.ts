// What an image archive holds, read on the controller: the image's config digest (its ID in
// every runtime: containerd and Docker both name an image by it) and the references it
// carries. Works for OCI layouts (index.json) and docker-archives (manifest.json).
import { ArtifactError } from './artifact.js';
import { listMembers, readMember } from './local-tar.js';

export interface ImageArchiveInfo {
  readonly format: 'oci' | 'docker-archive';
  /** "sha256:<hex>" of the image config. */
  readonly imageId: string;
  readonly references: readonly string[];
}

const blobPath = (digest: string): string => `blobs/${digest.replace(':', '/')}`;

function json(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ArtifactError(`${what}: ${(error as Error).message}`);
  }
}

export async function readImageArchive(archive: string, what: string): Promise<ImageArchiveInfo> {
  const members = new Set((await listMembers(archive, what)).map((m) => m.replace(/^\.\//, '')));
  if (members.has('index.json')) {
    const index = json(await readMember(archive, 'index.json', what), `${what}: index.json`) as {
      manifests?: { digest?: string; annotations?: Record<string, string> }[];
    };
    const first = index.manifests?.[0];
    if (!first?.digest) throw new ArtifactError(`${what}: index.json lists no image manifest`);
    const manifest = json(await readMember(archive, blobPath(first.digest), what), `${what}: manifest`) as { config?: { digest?: string } };
    if (!manifest.config?.digest) throw new ArtifactError(`${what}: the image manifest has no config`);
    const references = (index.manifests ?? []).map((m) => m.annotations?.['io.containerd.image.name']).filter((r): r is string => typeof r === 'string');
    return { format: 'oci', imageId: manifest.config.digest, references };
  }
  if (members.has('manifest.json')) {
    const manifest = json(await readMember(archive, 'manifest.json', what), `${what}: manifest.json`) as { Config?: string; RepoTags?: string[] }[];
    const config = manifest[0]?.Config;
    if (!config) throw new ArtifactError(`${what}: manifest.json names no image config`);
    const hex = /([0-9a-f]{64})(\.json)?$/.exec(config)?.[1];
    if (!hex) throw new ArtifactError(`${what}: cannot tell the image ID from config "${config}"`);
    return { format: 'docker-archive', imageId: `sha256:${hex}`, references: manifest[0]?.RepoTags ?? [] };
  }
  throw new ArtifactError(`${what}: neither an OCI image layout (index.json) nor a docker-archive (manifest.json)`);
}
