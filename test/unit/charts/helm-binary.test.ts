// Which helm cluster.charts runs: the bundle's, checked against its lock, and only on a
// controller of the bundle's platform (a fake bundle: a lock and a file standing for helm).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helmBinaryFor } from '../../../src/kubernetes/charts/helm-binary.js';
import { componentVersionsFor, KUBERNETES_RELEASES } from '../../../src/kubernetes/artifacts/component-versions.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-helm-binary-'));
const HOSTS = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';
const version = componentVersionsFor(KUBERNETES_RELEASES[0]!).helm;

function fakeBundle(name: string, withHelm: boolean, content = 'not really helm', bundleArch = 'amd64'): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'helm', version), { recursive: true });
  writeFileSync(join(dir, 'helm', version, 'helm'), content);
  const entry = {
    component: 'helm',
    name: 'helm',
    version,
    arch: 'amd64',
    type: 'binary',
    path: `helm/${version}/helm`,
    size: Buffer.byteLength('not really helm'),
    sha256: createHash('sha256').update('not really helm').digest('hex'),
  };
  writeFileSync(
    join(dir, 'kcluster-bundle.json'),
    JSON.stringify({ kind: 'kcluster-bundle', formatVersion: 1, arch: bundleArch, artifacts: withHelm ? [entry] : [] }),
  );
  return dir;
}

const inventoryFor = (artifacts: string) => loadInventoryText(root, `cluster:\n  artifacts: ${artifacts}\n${HOSTS}`);
const linuxAmd64 = { platform: 'linux', arch: 'x64' };

describe('the helm cluster.charts runs (fake bundle)', () => {
  it("is the bundle's, checked against the lock, on a linux/amd64 controller", async () => {
    const bundle = fakeBundle('good', true);
    expect(await helmBinaryFor(inventoryFor(`{ source: bundle, bundle: ${bundle}, cacheDir: ${join(root, 'cache')} }`), linuxAmd64)).toEqual({
      path: join(bundle, 'helm', version, 'helm'),
      version,
    });
  });

  it("is the building machine's in a bundle cross-built for arm64 nodes (helm recorded as amd64), and refused on an arm64 controller", async () => {
    const bundle = fakeBundle('cross', true, 'not really helm', 'arm64');
    const inventory = inventoryFor(`{ source: bundle, bundle: ${bundle}, cacheDir: ${join(root, 'cache')} }`);
    expect(await helmBinaryFor(inventory, linuxAmd64)).toEqual({ path: join(bundle, 'helm', version, 'helm'), version });
    expect(await helmBinaryFor(inventory, { platform: 'linux', arch: 'arm64' })).toEqual({
      missing:
        "the bundle's helm is built for linux/amd64 (the machine that built the bundle) and this controller is linux/arm64: run kcluster on a linux/amd64 controller, or build the bundle on this one",
    });
  });

  it('is refused, by name, on a controller of another platform, from a bundle without helm, from a corrupt file, and with source: release', async () => {
    const cache = join(root, 'cache');
    const good = inventoryFor(`{ source: bundle, bundle: ${fakeBundle('other', true)}, cacheDir: ${cache} }`);
    expect(await helmBinaryFor(good, { platform: 'darwin', arch: 'arm64' })).toEqual({
      missing:
        "the bundle's helm is built for linux/amd64 (the machine that built the bundle) and this controller is darwin/arm64: run kcluster on a linux/amd64 controller, or build the bundle on this one",
    });
    const without = fakeBundle('without', false);
    expect(await helmBinaryFor(inventoryFor(`{ source: bundle, bundle: ${without}, cacheDir: ${cache} }`), linuxAmd64)).toEqual({
      missing: `bundle ${without} holds no helm ${version}: rebuild it with this kcluster (kcluster bundle build -i INVENTORY builds helm when cluster.charts lists a chart)`,
    });
    const corrupt = await helmBinaryFor(
      inventoryFor(`{ source: bundle, bundle: ${fakeBundle('corrupt', true, 'not really hel!')}, cacheDir: ${cache} }`),
      linuxAmd64,
    );
    expect('missing' in corrupt && corrupt.missing).toMatch(
      /helm\/v[0-9.]+\/helm has sha256 [0-9a-f]{64}, expected [0-9a-f]{64}: the file is corrupt or was replaced/,
    );
    expect(await helmBinaryFor(inventoryFor('{ source: release }'), linuxAmd64)).toEqual({
      missing:
        'kcluster runs the helm of its bundle, and cluster.artifacts.source is release: set source: bundle (kcluster bundle build -i INVENTORY builds helm into it)',
    });
  });
});
