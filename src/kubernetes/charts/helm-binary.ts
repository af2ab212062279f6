// Which helm kcluster runs for cluster.charts: the bundle's (helm/VERSION/helm, VERSION from the
// version table), checked against the bundle's lock, on a controller that can run it. The
// bundle is built for one architecture, and helm is built for the machine that builds it: on a
// controller of another platform it is refused here, by name, before any host is touched.
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { openBundle, checkEntry } from '../artifacts/bundle-source.js';
import { findEntry } from '../artifacts/bundle-lock.js';
import { componentVersionsFor } from '../artifacts/component-versions.js';
import { VerifiedFiles } from '../artifacts/verified-files.js';

/** Node's names -> Go's, as the bundle's lock writes them. */
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

/** The helm to run, or why there is none (each reason says what to do). */
export type HelmBinary = { readonly path: string; readonly version: string } | { readonly missing: string };

export interface ControllerPlatform {
  readonly platform: string;
  readonly arch: string;
}

export async function helmBinaryFor(inventory: Inventory, controller: ControllerPlatform = { platform: platform(), arch: arch() }): Promise<HelmBinary> {
  const { artifacts, kubernetesVersion } = inventory.cluster;
  if (artifacts.kind !== 'bundle' || artifacts.bundle === undefined)
    return {
      missing:
        'kcluster runs the helm of its bundle, and cluster.artifacts.source is release: set source: bundle (kcluster bundle build -i INVENTORY builds helm into it)',
    };
  const version = componentVersionsFor(kubernetesVersion).helm;
  const bundle = await openBundle(artifacts.bundle, artifacts.cacheDir);
  const goArch = GO_ARCH[controller.arch] ?? controller.arch;
  const entry = findEntry(bundle.lock, { component: 'helm', name: 'helm', version, arch: bundle.lock.arch, type: 'binary' });
  if (entry === undefined)
    return {
      missing: `bundle ${artifacts.bundle} holds no helm ${version}: rebuild it with this kcluster (kcluster bundle build -i INVENTORY builds helm when cluster.charts lists a chart)`,
    };
  if (controller.platform !== 'linux' || goArch !== bundle.lock.arch)
    return {
      missing: `the bundle's helm is built for linux/${bundle.lock.arch} (the machine that built the bundle) and this controller is ${controller.platform}/${goArch}: run kcluster on a linux/${bundle.lock.arch} controller, or build the bundle on this one`,
    };
  const verified = new VerifiedFiles(artifacts.cacheDir);
  const problem = await checkEntry(bundle, entry, verified);
  await verified.save();
  if (problem !== undefined) return { missing: problem };
  return { path: join(bundle.root, entry.path), version };
}
