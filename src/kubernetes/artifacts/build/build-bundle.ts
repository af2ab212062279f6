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

/** Node's name for the machine's architecture, as Go and the bundle name it. */
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

export class BundleBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleBuildError';
  }
}

export async function buildBundle(request: BundleBuildRequest): Promise<AssembledBundle> {
  const arch = BUNDLE_BUILD.arch;
  if (GO_ARCH[machineArch()] !== arch) {
    throw new BundleBuildError(
      `the recipes build ${arch} binaries natively and this machine is ${GO_ARCH[machineArch()] ?? machineArch()}: run kcluster bundle build on an ${arch} machine`,
    );
  }
  const wanted = uniqueComponents([...request.wanted, ...(request.testTools ? [{ component: 'test-tools', version: TOOL_VERSION }] : [])]);
  const stages = planBundleBuild(request.wanted, { testTools: request.testTools, fromReleases: request.fromReleases !== undefined });
  request.onEvent?.({ type: 'plan', stages });
  const outputs = new Map<string, StageOutput>();
  const env: Record<string, string> = { KCLUSTER_BUILD_CACHE: request.cacheDir, KCLUSTER_GO_TOOLCHAIN: BUNDLE_BUILD.goToolchain, KCLUSTER_ARCH: arch };
  for (const stage of stages) {
    request.signal?.throwIfAborted();
    const dependencyDirs = stage.after.map((id) => outputs.get(id)?.dir ?? '');
    const key = stageKey(stage, { root: request.root, goToolchain: BUNDLE_BUILD.goToolchain, arch, dependencyDirs });
    const stageEnv = {
      ...env,
      ...(stage.name === 'pause' && dependencyDirs[0] ? { KCLUSTER_PAUSE_SOURCE: `${dependencyDirs[0]}/.pause.c` } : {}),
      ...stage.env,
    };
    const produce =
      stage.origin === 'release'
        ? releaseStageProducer(stage, {
            mirrors: request.fromReleases?.mirrors ?? {},
            downloadDir: join(request.cacheDir, 'releases'),
            arch,
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
    imageRepository: BUNDLE_BUILD.imageRepository,
    wanted,
    outputs,
    signal: request.signal,
  });
  request.onEvent?.({ type: 'assembled', bundle, seconds: (Date.now() - started) / 1000 });
  return bundle;
}
