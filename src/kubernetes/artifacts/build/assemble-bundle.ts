// Puts the stages' outputs together into a bundle: `COMPONENT/VERSION/NAME` for binaries (hard
// links into the cache when it can), `images/NAME-VERSION.tar` OCI archives assembled by
// mkimage, and the lock file kcluster-bundle.json with every size and sha256. The bundle is
// written next to its final place and renamed into it when whole; the same inputs give the same
// folder, which a second build finds and returns.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { LOCK_FILE, type BundleEntry, type BundleLock } from '../bundle-lock.js';
import { sha256File } from '../../../orchestrator/util/sha256-file.js';
import { writeBaseLayer } from './base-layer.js';
import { MKIMAGE_STAGE, NETBASE_STAGE, type WantedComponent } from './build-plan.js';
import { COMPONENT_CONTENTS, type Layer } from './bundle-contents.js';
import type { StageOutput } from './run-stage.js';
import { HOST_TOOL_COMPONENTS } from '../arch.js';

const run = promisify(execFile);

/** Raised when the layout below changes, so that no older bundle is taken for a new one. */
const ASSEMBLY_FORMAT = 'kcluster-bundle-assembly 2';

export interface AssembleOptions {
  readonly cacheDir: string;
  /** The nodes' architecture: every binary and image but the host tools'. */
  readonly arch: string;
  /** The building machine's architecture: the host tools' (HOST_TOOL_COMPONENTS). */
  readonly hostArch: string;
  readonly imageRepository: string;
  readonly wanted: readonly WantedComponent[];
  /** By stage id (`name@version`). */
  readonly outputs: ReadonlyMap<string, StageOutput>;
  /** Bundles kept in the cache (the newest); older ones are removed. */
  readonly keep?: number;
  readonly signal?: AbortSignal | undefined;
}

export interface AssembledBundle {
  readonly dir: string;
  readonly cached: boolean;
  readonly artifacts: number;
  readonly bytes: number;
}

function output(outputs: ReadonlyMap<string, StageOutput>, id: string): string {
  const found = outputs.get(id);
  if (!found) throw new Error(`internal: stage ${id} was not built`);
  return found.dir;
}

function linkOrCopy(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

export function bundleDirFor(options: Pick<AssembleOptions, 'cacheDir' | 'wanted' | 'outputs'>): string {
  const hash = createHash('sha256').update(`${ASSEMBLY_FORMAT}\n`);
  for (const w of [...options.wanted].sort((a, b) => `${a.component}@${a.version}`.localeCompare(`${b.component}@${b.version}`))) {
    hash.update(`${w.component}@${w.version} ${basename(output(options.outputs, `${w.component}@${w.version}`))}\n`);
  }
  for (const tool of [MKIMAGE_STAGE, NETBASE_STAGE]) {
    const found = options.outputs.get(tool);
    if (found) hash.update(`${tool} ${basename(found.dir)}\n`);
  }
  const first = options.wanted.find((w) => w.component === 'kubernetes')?.version ?? 'components';
  return join(options.cacheDir, 'bundles', `kcluster-bundle-${first}-${hash.digest('hex').slice(0, 12)}`);
}

async function binaryEntries(root: string, archOfComponent: (component: string) => string): Promise<BundleEntry[]> {
  const out: BundleEntry[] = [];
  for (const component of readdirSync(root).sort()) {
    if (component === 'images' || component.startsWith('.') || !statSync(join(root, component)).isDirectory()) continue;
    for (const version of readdirSync(join(root, component)).sort()) {
      for (const name of readdirSync(join(root, component, version)).sort()) {
        const path = `${component}/${version}/${name}`;
        const file = join(root, path);
        out.push({
          name,
          component,
          version,
          arch: archOfComponent(component),
          type: 'binary',
          path,
          size: statSync(file).size,
          sha256: await sha256File(file),
        });
      }
    }
  }
  return out;
}

export async function assembleBundle(options: AssembleOptions): Promise<AssembledBundle> {
  const bundle = bundleDirFor(options);
  if (existsSync(join(bundle, LOCK_FILE))) return { dir: bundle, cached: true, ...summary(bundle) };
  const partial = `${bundle}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(join(partial, 'images'), { recursive: true });
  const work = mkdtempSync(join(options.cacheDir, 'assemble-'));
  try {
    writeBaseLayer(join(work, 'base'));
    const netbase = options.outputs.get(NETBASE_STAGE)?.dir;
    const mkimage = options.outputs.get(MKIMAGE_STAGE)?.dir;
    const images: BundleEntry[] = [];
    let layerCount = 0;
    const layerDir = (layer: Layer, stageDir: string): string => {
      if (layer.kind === 'base') return join(work, 'base');
      if (layer.kind === 'netbase') {
        if (!netbase) throw new Error('internal: an image needs the netbase-rootfs stage, which was not built');
        return join(netbase, 'rootfs');
      }
      const dir = join(work, `layer-${++layerCount}`);
      for (const f of layer.files) {
        const to = join(dir, f.to);
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(join(stageDir, f.from), to);
        chmodSync(to, 0o755);
      }
      return dir;
    };
    for (const w of options.wanted) {
      const contents = COMPONENT_CONTENTS[w.component];
      if (!contents) throw new Error(`internal: no bundle contents for component ${w.component}`);
      const stageDir = output(options.outputs, `${w.component}@${w.version}`);
      for (const name of contents.binaries) linkOrCopy(join(stageDir, name), join(partial, w.component, w.version, name));
      const imageVersion = contents.versionFile ? readFileSync(join(stageDir, contents.versionFile), 'utf8').trim() : w.version;
      for (const spec of contents.images) {
        if (!mkimage) throw new Error('internal: an image needs the mkimage stage, which was not built');
        options.signal?.throwIfAborted();
        const reference = `${options.imageRepository}/${spec.name}:${imageVersion}`;
        const path = `images/${spec.name}-${imageVersion}.tar`;
        const args = ['-name', reference, '-arch', options.arch, '-out', join(partial, path), '-entrypoint', spec.entrypoint];
        if (spec.user) args.push('-user', spec.user);
        for (const layer of spec.layers) args.push('-layer', layerDir(layer, stageDir));
        await run(join(mkimage, 'mkimage'), args, { signal: options.signal, maxBuffer: 16 * 1024 * 1024 });
        const file = join(partial, path);
        images.push({
          name: spec.name,
          component: w.component,
          version: imageVersion,
          arch: options.arch,
          type: 'image',
          format: 'oci',
          reference,
          path,
          size: statSync(file).size,
          sha256: await sha256File(file),
        });
      }
    }
    const debianPackages = netbase ? readFileSync(join(netbase, 'debian-packages.txt'), 'utf8').split('\n').filter(Boolean) : [];
    if (netbase) copyFileSync(join(netbase, 'debian-packages.txt'), join(partial, 'debian-packages.txt'));
    const lock: BundleLock = {
      kind: 'kcluster-bundle',
      formatVersion: 1,
      arch: options.arch,
      artifacts: [...(await binaryEntries(partial, (component) => (HOST_TOOL_COMPONENTS.has(component) ? options.hostArch : options.arch))), ...images],
      debianPackages,
    };
    writeFileSync(join(partial, LOCK_FILE), `${JSON.stringify(lock, null, 2)}\n`);
    rmSync(bundle, { recursive: true, force: true });
    renameSync(partial, bundle);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  pruneBundles(options.cacheDir, options.keep ?? 3, bundle);
  return { dir: bundle, cached: false, ...summary(bundle) };
}

function summary(bundle: string): { artifacts: number; bytes: number } {
  const lock = JSON.parse(readFileSync(join(bundle, LOCK_FILE), 'utf8')) as BundleLock;
  return { artifacts: lock.artifacts.length, bytes: lock.artifacts.reduce((n, a) => n + a.size, 0) };
}

/** Keeps the `keep` newest bundles (1.2 GB each); the stage outputs they came from stay cached. */
function pruneBundles(cacheDir: string, keep: number, current: string): void {
  const dir = join(cacheDir, 'bundles');
  const bundles = readdirSync(dir)
    .filter((n) => n.startsWith('kcluster-bundle-') && !n.endsWith('.partial'))
    .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const old of bundles.slice(keep)) if (old.path !== current) rmSync(old.path, { recursive: true, force: true });
}
