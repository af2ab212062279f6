// Which helm kcluster runs for cluster.charts: the bundle's (helm/VERSION/helm, VERSION from the
// version table), checked against the bundle's lock, on a controller that can run it. Helm is
// built for the machine that builds the bundle (whatever the nodes' architecture, `--arch`) and
// recorded with that architecture: on a controller of another platform it is refused here, by
// name, before any host is touched.
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { openBundle, checkEntry } from '../artifacts/bundle-source.js';
import { componentVersionsFor } from '../artifacts/component-versions.js';
import { VerifiedFiles } from '../artifacts/verified-files.js';
import { archOf } from '../artifacts/arch.js';

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
  const goArch = archOf(controller.arch) ?? controller.arch;
  const helms = bundle.lock.artifacts.filter((a) => a.component === 'helm' && a.name === 'helm' && a.version === version && a.type === 'binary');
  if (helms.length === 0)
    return {
      missing: `bundle ${artifacts.bundle} holds no helm ${version}: rebuild it with this kcluster (kcluster bundle build -i INVENTORY builds helm when cluster.charts lists a chart)`,
    };
  const entry = controller.platform === 'linux' ? helms.find((h) => h.arch === goArch) : undefined;
  if (entry === undefined) {
    const built = helms.map((h) => `linux/${h.arch}`).join(', ');
    return {
      missing: `the bundle's helm is built for ${built} (the machine that built the bundle) and this controller is ${controller.platform}/${goArch}: run kcluster on a ${built} controller, or build the bundle on this one`,
    };
  }
  const verified = new VerifiedFiles(artifacts.cacheDir);
  const problem = await checkEntry(bundle, entry, verified);
  await verified.save();
  if (problem !== undefined) return { missing: problem };
  return { path: join(bundle.root, entry.path), version };
}
