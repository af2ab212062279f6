// `kcluster bundle build`: runs the planned stages one after the other (each Go build already
// uses every core), from the cache where it can, then assembles the bundle. Progress is told as
// events, so that a terminal can draw a live tree and a log can take plain lines.
import { arch as machineArch } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_BUILD } from '../component-versions.js';
import { assembleBundle, type AssembledBundle } from './assemble-bundle.js';
import { planBundleBuild, TOOL_VERSION, uniqueComponents, type BuildStage, type WantedComponent } from './build-plan.js';
import { releaseStageProducer } from './release-stage.js';
import { runStage, StageFailedError, type StageOutput } from './run-stage.js';
import { stageKey } from './stage-key.js';
import { ARCHES, archOf, HOST_TOOL_COMPONENTS, type Arch } from '../arch.js';

export type BuildEvent =
  | { readonly type: 'plan'; readonly stages: readonly BuildStage[] }
  | { readonly type: 'stage-cached'; readonly output: StageOutput }
  | { readonly type: 'stage-building'; readonly stage: BuildStage; readonly log: string }
  | { readonly type: 'stage-built'; readonly output: StageOutput }
  | { readonly type: 'stage-failed'; readonly error: StageFailedError }
  | { readonly type: 'assembling' }
  | { readonly type: 'assembled'; readonly bundle: AssembledBundle; readonly seconds: number };

export interface BundleBuildRequest {
  readonly wanted: readonly WantedComponent[];
  /** The nodes' architecture (`--arch`); undefined: this machine's. Another one is cross-built. */
  readonly arch?: Arch | undefined;
  /** The busybox image kcluster's own end-to-end tests run their pods with. */
  readonly testTools?: boolean | undefined;
  readonly cacheDir: string;
  /** The package root (bundle/recipes and src/kubernetes/apiproxy are under it). */
  readonly root: string;
  readonly signal?: AbortSignal | undefined;
  readonly onEvent?: (event: BuildEvent) => void;
  /**
   * Download what the official releases publish with checksums instead of building it, through
   * these URL prefix rewrites (cluster.artifacts.mirrors; none: the official locations).
   */
  readonly fromReleases?: { readonly mirrors: Readonly<Record<string, string>> } | undefined;
}

/** Recipes that build only for the machine they run on (C projects built with their own configure). */
const NATIVE_ONLY: ReadonlySet<string> = new Set(['keepalived']);

export class BundleBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleBuildError';
  }
}

export async function buildBundle(request: BundleBuildRequest): Promise<AssembledBundle> {
  const hostArch = archOf(machineArch());
  if (hostArch === undefined) throw new BundleBuildError(`this machine is ${machineArch()}: kcluster bundle build runs on ${ARCHES.join(' or ')} machines`);
  const arch = request.arch ?? hostArch;
  const wanted = uniqueComponents([...request.wanted, ...(request.testTools ? [{ component: 'test-tools', version: TOOL_VERSION }] : [])]);
  const stages = planBundleBuild(request.wanted, { testTools: request.testTools, fromReleases: request.fromReleases !== undefined });
  const nativeOnly = arch === hostArch ? [] : stages.filter((s) => s.origin === 'source' && NATIVE_ONLY.has(s.name)).map((s) => s.id);
  if (nativeOnly.length > 0)
    throw new BundleBuildError(
      `${nativeOnly.join(', ')} cannot be cross-built for ${arch} on this ${hostArch} machine: build the ${arch} bundle on an ${arch} machine, or without what needs it (keepalived: cluster.apiEndpoint.virtualIp)`,
    );
  /** Tools that run here or on the controller are built for this machine; the rest for the nodes. */
  const archFor = (stage: BuildStage): Arch => (HOST_TOOL_COMPONENTS.has(stage.name) ? hostArch : arch);
  request.onEvent?.({ type: 'plan', stages });
  const outputs = new Map<string, StageOutput>();
  const env: Record<string, string> = { KCLUSTER_BUILD_CACHE: request.cacheDir, KCLUSTER_GO_TOOLCHAIN: BUNDLE_BUILD.goToolchain };
  for (const stage of stages) {
    request.signal?.throwIfAborted();
    const dependencyDirs = stage.after.map((id) => outputs.get(id)?.dir ?? '');
    const key = stageKey(stage, { root: request.root, goToolchain: BUNDLE_BUILD.goToolchain, arch: archFor(stage), dependencyDirs });
    const stageEnv = {
      ...env,
      KCLUSTER_ARCH: archFor(stage),
      ...(stage.name === 'pause' && dependencyDirs[0] ? { KCLUSTER_PAUSE_SOURCE: `${dependencyDirs[0]}/.pause.c` } : {}),
      ...stage.env,
    };
    const produce =
      stage.origin === 'release'
        ? releaseStageProducer(stage, {
            mirrors: request.fromReleases?.mirrors ?? {},
            downloadDir: join(request.cacheDir, 'releases'),
            arch: archFor(stage),
            signal: request.signal,
          })
        : undefined;
    try {
      const output = await runStage(stage, { root: request.root, cacheDir: request.cacheDir, key, env: stageEnv, signal: request.signal, produce }, (log) =>
        request.onEvent?.({ type: 'stage-building', stage, log }),
      );
      outputs.set(stage.id, output);
      request.onEvent?.(output.cached ? { type: 'stage-cached', output } : { type: 'stage-built', output });
    } catch (error) {
      if (error instanceof StageFailedError) request.onEvent?.({ type: 'stage-failed', error });
      throw error;
    }
  }
  request.onEvent?.({ type: 'assembling' });
  const started = Date.now();
  const bundle = await assembleBundle({
    cacheDir: request.cacheDir,
    arch,
    hostArch,
    imageRepository: BUNDLE_BUILD.imageRepository,
    wanted,
    outputs,
    signal: request.signal,
  });
  request.onEvent?.({ type: 'assembled', bundle, seconds: (Date.now() - started) / 1000 });
  return bundle;
}
