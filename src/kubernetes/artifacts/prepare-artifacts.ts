// Before any host is touched: find every artifact the inventory needs in its source, fetch it
// to the controller's cache once (however many hosts need it), verify it, and return where
// each verified file is. Every missing or corrupt piece is reported at once, by name, with
// the checksum expected; nothing is pushed to any host until all of them are in order.
import { join } from 'node:path';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { ArtifactError, artifactLabel, type PreparedArtifact, type RequiredArtifact } from './artifact.js';
import { apiproxySourceDir, buildApiproxy, checkGoForApiproxy } from './apiproxy-build.js';
import { findEntry } from './bundle-lock.js';
import { upstreamImageReference } from './component-versions.js';
import { checkEntry, openBundle } from './bundle-source.js';
import type { RetryPolicy } from './http-retry.js';
import { readImageArchive } from './image-archive.js';
import { ReleaseFetcher } from './release-fetcher.js';
import { requiredArtifacts } from './required-artifacts.js';
import { VerifiedFiles } from './verified-files.js';

export interface PrepareOptions {
  readonly signal?: AbortSignal;
  /** Progress lines ("downloaded ... 12 MB"). */
  readonly log?: (line: string) => void;
  /** Downloads at once (default 4). */
  readonly downloadConcurrency?: number;
  /** Attempts and pauses when a download's connection fails (default: 4 attempts, 0.5 s doubling). */
  readonly retry?: RetryPolicy;
  /**
   * Only what the controller decides without downloading or hashing (validate, and apply before
   * anything else): the bundle is there and lists every piece, a release image has a source.
   * The artifacts returned then have no verified file: not for installing.
   */
  readonly resolveOnly?: boolean;
}

async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await work(items[i]!) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function throwAll(results: readonly PromiseSettledResult<unknown>[], source: string): void {
  const problems = results.flatMap((r) => (r.status === 'rejected' ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : []));
  if (problems.length > 0) {
    const unique = [...new Set(problems)];
    throw new ArtifactError(
      `${unique.length} artifact problem${unique.length === 1 ? '' : 's'} (${source}); nothing was installed on any host:\n  - ${unique.join('\n  - ')}`,
    );
  }
}

/** kcluster's own components that bundles built before them lack: since what, and what to do instead. */
const NEWER_THAN_OLD_BUNDLES: Readonly<Record<string, { readonly since: (version: string) => string; readonly todo: string }>> = {
  'kcluster-relay': {
    since: () => 'artifact fan-out',
    todo: 'rebuild the bundle (kcluster bundle build), or set cluster.artifacts.fanOut: false to send every host its copy from the controller',
  },
  'kcluster-snapshot-upload': {
    since: () => 'scheduled snapshots went into the store',
    todo: 'rebuild the bundle (kcluster bundle build -i INVENTORY), or remove cluster.state.scheduledSnapshots',
  },
  'kcluster-apiproxy': { since: (version) => `kcluster-apiproxy ${version}`, todo: 'rebuild the bundle (kcluster bundle build -i INVENTORY)' },
  keepalived: {
    since: () => 'cluster.apiEndpoint.virtualIp',
    todo: 'rebuild the bundle (kcluster bundle build -i INVENTORY), or use a load balancer and remove virtualIp',
  },
};

async function fromBundle(
  inventory: Inventory,
  needs: readonly RequiredArtifact[],
  verified: VerifiedFiles,
  options: PrepareOptions,
): Promise<PreparedArtifact[]> {
  const path = inventory.cluster.artifacts.bundle;
  if (path === undefined) throw new ArtifactError('cluster.artifacts.source is bundle but cluster.artifacts.bundle names no bundle');
  const bundle = await openBundle(path, inventory.cluster.artifacts.cacheDir);
  const otherArch = needs.filter((n) => n.arch !== bundle.lock.arch);
  if (otherArch.length > 0) {
    const hosts = [...new Set(otherArch.flatMap((n) => n.hosts))];
    const arches = [...new Set(otherArch.map((n) => n.arch))];
    throw new ArtifactError(
      `bundle ${path} holds ${bundle.lock.arch} artifacts; ${hosts.join(', ')} ${hosts.length === 1 ? 'is' : 'are'} ${arches.join(' and ')} (arch in the inventory): ` +
        `build a bundle for ${arches.join(' and ')} (kcluster bundle build --arch ${arches[0]!}) and name it in cluster.artifacts.bundle, or correct their arch (a bundle holds one architecture, so one cluster's hosts share one)`,
    );
  }
  const results = await inParallel(needs, 4, async (need): Promise<PreparedArtifact> => {
    const entry = findEntry(bundle.lock, need);
    const newer = NEWER_THAN_OLD_BUNDLES[need.component];
    if (!entry && newer !== undefined)
      throw new ArtifactError(`${artifactLabel(need)}: not in bundle ${path} (built before ${newer.since(need.version)}): ${newer.todo}`);
    if (!entry)
      throw new ArtifactError(
        `${artifactLabel(need)}: not in bundle ${path}: rebuild the bundle with this version, or pick the versions it holds (kcluster artifacts verify --bundle ${path} lists them)`,
      );
    if (options.resolveOnly === true)
      return { ...need, origin: { kind: 'bundle', bundle: path, path: entry.path }, ...(entry.reference !== undefined ? { reference: entry.reference } : {}) };
    const problem = await checkEntry(bundle, entry, verified);
    if (problem) throw new ArtifactError(problem);
    const localPath = join(bundle.root, entry.path);
    const base = { ...need, origin: { kind: 'bundle', bundle: path, path: entry.path } as const, localPath, sha256: entry.sha256, size: entry.size };
    if (need.type === 'binary') return base;
    const info = await readImageArchive(localPath, `${artifactLabel(need)} (${entry.path})`);
    return { ...base, reference: entry.reference ?? info.references[0] ?? `${need.name}:${need.version}`, imageId: info.imageId };
  });
  throwAll(results, `bundle ${path}`);
  return results.map((r) => (r as PromiseFulfilledResult<PreparedArtifact>).value);
}

async function fromRelease(
  inventory: Inventory,
  needs: readonly RequiredArtifact[],
  verified: VerifiedFiles,
  options: PrepareOptions,
): Promise<PreparedArtifact[]> {
  const { mirrors, imageRepository, cacheDir } = inventory.cluster.artifacts;
  const fetcher = new ReleaseFetcher(mirrors, cacheDir, verified, { signal: options.signal, log: options.log, retry: options.retry });
  const results = await inParallel(needs, options.downloadConcurrency ?? 4, async (need): Promise<PreparedArtifact> => {
    if (need.type === 'image') {
      // As its project publishes it, or from the mirror imageRepository names (upstream paths and tags).
      const reference = upstreamImageReference(need.name, need.version, imageRepository);
      return { ...need, origin: { kind: 'registry', reference }, reference };
    }
    if (need.component === 'kcluster-apiproxy') {
      // No release publishes kcluster's own proxy: built here from the source kcluster ships.
      if (options.resolveOnly === true) {
        await checkGoForApiproxy(artifactLabel(need));
        return { ...need, origin: { kind: 'built', source: apiproxySourceDir() } };
      }
      const localPath = await buildApiproxy(cacheDir, need.arch, artifactLabel(need), { signal: options.signal, log: options.log });
      const { sha256, size } = await verified.sha256(localPath);
      return { ...need, origin: { kind: 'built', source: apiproxySourceDir() }, localPath, sha256, size };
    }
    if (options.resolveOnly === true) return { ...need, origin: { kind: 'release', url: '' } };
    const { localPath, location } = await fetcher.binary(need);
    const { sha256, size } = await verified.sha256(localPath);
    return {
      ...need,
      origin: { kind: 'release', url: location.url, ...(location.member !== undefined ? { member: location.member } : {}) },
      localPath,
      sha256,
      size,
    };
  });
  throwAll(results, 'release downloads');
  return results.map((r) => (r as PromiseFulfilledResult<PreparedArtifact>).value);
}

export async function prepareArtifacts(inventory: Inventory, options: PrepareOptions = {}): Promise<PreparedArtifact[]> {
  const needs = requiredArtifacts(inventory);
  const verified = new VerifiedFiles(inventory.cluster.artifacts.cacheDir);
  try {
    return inventory.cluster.artifacts.kind === 'bundle'
      ? await fromBundle(inventory, needs, verified, options)
      : await fromRelease(inventory, needs, verified, options);
  } finally {
    await verified.save().catch(() => undefined);
  }
}
