// The bundle's lock file, kcluster-bundle.json: one entry per binary and image with its
// component, version, architecture, path inside the bundle, size and sha256. Parsed strictly:
// a lock we do not understand is an error that names the file and the entry.
import { Ajv } from 'ajv';
import type { ArtifactId } from './artifact.js';
import { ArtifactError } from './artifact.js';

export const LOCK_FILE = 'kcluster-bundle.json';

export interface BundleEntry extends ArtifactId {
  /** Relative to the bundle root, forward slashes, never leaving it. */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** Images: "oci" (OCI layout, may also carry docker's manifest.json) or "docker-archive". */
  readonly format?: 'oci' | 'docker-archive';
  /** Images: the full reference the image is imported under. */
  readonly reference?: string;
}

export interface BundleLock {
  readonly kind: 'kcluster-bundle';
  readonly formatVersion: 1;
  readonly arch: string;
  readonly artifacts: readonly BundleEntry[];
  readonly debianPackages?: readonly string[];
}

const schema = {
  type: 'object',
  required: ['kind', 'formatVersion', 'arch', 'artifacts'],
  properties: {
    kind: { const: 'kcluster-bundle' },
    formatVersion: { const: 1 },
    arch: { type: 'string', minLength: 1 },
    artifacts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['component', 'name', 'version', 'arch', 'type', 'path', 'size', 'sha256'],
        properties: {
          component: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]*$' },
          name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
          version: { type: 'string', minLength: 1 },
          arch: { type: 'string', minLength: 1 },
          type: { enum: ['binary', 'image'] },
          path: { type: 'string', pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$)).+$' },
          size: { type: 'integer', minimum: 0 },
          sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          format: { enum: ['oci', 'docker-archive'] },
          reference: { type: 'string', minLength: 1 },
        },
        if: { properties: { type: { const: 'image' } } },
        then: { required: ['reference', 'format'] },
      },
    },
    debianPackages: { type: 'array', items: { type: 'string' } },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** Parse and check a lock file's text; `where` names it in errors. */
export function parseBundleLock(text: string, where: string): BundleLock {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ArtifactError(`${where}: not valid JSON (${(error as Error).message}): rebuild or re-copy the bundle`);
  }
  if (!validate(data)) {
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new ArtifactError(`${where}: not a kcluster bundle lock file: ${problems.join('; ')}`);
  }
  const lock = data as unknown as BundleLock;
  const seen = new Set<string>();
  for (const [i, entry] of lock.artifacts.entries()) {
    const key = `${entry.component}/${entry.name}@${entry.version}/${entry.arch}/${entry.type}`;
    if (seen.has(key)) throw new ArtifactError(`${where}: /artifacts/${i}: ${key} is listed twice`);
    seen.add(key);
  }
  return lock;
}

export function findEntry(lock: BundleLock, id: ArtifactId): BundleEntry | undefined {
  return lock.artifacts.find((e) => e.component === id.component && e.name === id.name && e.version === id.version && e.arch === id.arch && e.type === id.type);
}
