// `kcluster bundle build --from-releases` with real binaries: the source-built bundle's binaries
// are published the way the release pages lay them out (plain files with .sha256, tarballs with
// SHA256SUMS or .sha256sum files) on a loopback server that stands in for an operator's mirror;
// every release stage then downloads, checks and extracts them, and must give back the same
// bytes. Assembling images from a stage's output is the same code for both origins.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPONENT_CONTENTS } from '../../src/kubernetes/artifacts/build/bundle-contents.js';
import { FROM_RELEASES, planBundleBuild } from '../../src/kubernetes/artifacts/build/build-plan.js';
import { releaseStageProducer } from '../../src/kubernetes/artifacts/build/release-stage.js';
import { runStage } from '../../src/kubernetes/artifacts/build/run-stage.js';
import { stageKey } from '../../src/kubernetes/artifacts/build/stage-key.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { startReleaseServer, type ReleaseServer } from '../support/release-server.js';
import { publishStandInReleases, sha256Of } from '../support/stand-in-releases.js';
import { bundleDir, bundleEntries } from './support/e2e-support.js';

const work = mkdtempSync(join(tmpdir(), 'kc-e2e-release-'));
let server: ReleaseServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('release stages with the real binaries (loopback mirror of the release layout)', () => {
  it('download, check and extract every binary of every release component, byte for byte', async () => {
    const entries = bundleEntries().filter((e) => FROM_RELEASES.has(e.component) && COMPONENT_CONTENTS[e.component]?.binaries.includes(e.name));
    const newest = (component: string): string =>
      entries
        .filter((e) => e.component === component)
        .map((e) => e.version)
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        .at(-1)!;
    const chosen = entries.filter((e) => e.version === newest(e.component));
    server = await startReleaseServer(join(work, 'www'));
    const mirrors = { 'https://github.com': `${server.url}/gh`, 'https://dl.k8s.io': `${server.url}/k8s` };
    const ids = chosen.map((e) => ({ component: e.component, name: e.name, version: e.version, arch: 'amd64', type: 'binary' as const }));
    publishStandInReleases(join(work, 'www'), join(work, 'staging'), ids, mirrors, (id) =>
      join(bundleDir(), chosen.find((e) => e.component === id.component && e.name === id.name)!.path),
    );

    const components = [...new Set(chosen.map((e) => `${e.component}@${e.version}`))].map((id) => ({
      component: id.split('@')[0]!,
      version: id.split('@')[1]!,
    }));
    // the image tool and the Debian layer stay built from source; the rest is downloaded
    const stages = planBundleBuild(components, { fromReleases: true }).filter((s) => s.origin === 'release');
    expect(stages.map((s) => s.name).sort()).toEqual(components.map((c) => c.component).sort());
    const cacheDir = join(work, 'cache');
    const started = Date.now();
    for (const stage of stages) {
      const key = stageKey(stage, { root: packageRoot(), goToolchain: 'unused', arch: 'amd64', dependencyDirs: [] });
      const output = await runStage(stage, {
        root: packageRoot(),
        cacheDir,
        key,
        env: {},
        produce: releaseStageProducer(stage, { mirrors, downloadDir: join(cacheDir, 'releases'), arch: 'amd64' }),
      });
      for (const name of COMPONENT_CONTENTS[stage.name]!.binaries) {
        const entry = chosen.find((e) => e.component === stage.name && e.name === name)!;
        expect(sha256Of(readFileSync(join(output.dir, name))), `${stage.id} ${name}`).toBe(sha256Of(readFileSync(join(bundleDir(), entry.path))));
      }
    }
    console.log(
      `release stages: ${stages.length} components, ${ids.length} binaries downloaded, checked and extracted in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 600_000);
});
