// `kcluster bundle build --from-releases` against a loopback server standing in for a file
// server that mirrors the release pages (cluster.artifacts.mirrors rewrite the official URLs to
// it). The binaries are stand-ins; the build is the real one: plan, release stages downloaded
// and checked against the published checksums, cached, assembled into a bundle whose lock
// verifies, and a corrupt download refused with the URL named and nothing cached.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuildEvent } from '../../../../src/kubernetes/artifacts/build/build-bundle.js';
import { COMPONENT_CONTENTS } from '../../../../src/kubernetes/artifacts/build/bundle-contents.js';
import { planBundleBuild, type WantedComponent } from '../../../../src/kubernetes/artifacts/build/build-plan.js';
import { StageFailedError } from '../../../../src/kubernetes/artifacts/build/run-stage.js';
import { openBundle, verifyBundle } from '../../../../src/kubernetes/artifacts/bundle-source.js';
import { componentVersionsFor, KUBERNETES_RELEASES } from '../../../../src/kubernetes/artifacts/component-versions.js';
import { VerifiedFiles } from '../../../../src/kubernetes/artifacts/verified-files.js';
import { packageRoot } from '../../../../src/orchestrator/util/package-root.js';
import { startReleaseServer, type ReleaseServer } from '../../../support/release-server.js';
import { publishStandInReleases, sha256Of } from '../../../support/stand-in-releases.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-bb-release-'));
const www = join(dir, 'www');
const versions = componentVersionsFor(KUBERNETES_RELEASES[0]!);
// Binary-only components: no image to assemble, so no Go and no image tool in this test.
const wanted: WantedComponent[] = [
  { component: 'runc', version: versions.runc },
  { component: 'containerd', version: versions.containerd },
  { component: 'crictl', version: versions.crictl },
  { component: 'cni-plugins', version: versions.cniPlugins },
];
let server: ReleaseServer;
let mirrors: Record<string, string>;
let published: Map<string, Buffer>;

beforeAll(async () => {
  server = await startReleaseServer(www);
  mirrors = { 'https://github.com': `${server.url}/gh`, 'https://dl.k8s.io': `${server.url}/k8s` };
  const binaries = wanted.flatMap((w) =>
    COMPONENT_CONTENTS[w.component]!.binaries.map((name) => ({ component: w.component, name, version: w.version, arch: 'amd64', type: 'binary' as const })),
  );
  published = publishStandInReleases(www, join(dir, 'staging'), binaries, mirrors);
});
afterAll(() => server.close());

describe('bundle build --from-releases (loopback mirror, stand-in binaries)', () => {
  it('plans release downloads for what releases publish with checksums, and builds the rest', () => {
    const stages = planBundleBuild(
      [
        ...wanted,
        { component: 'kubernetes', version: KUBERNETES_RELEASES[0]! },
        { component: 'pause', version: versions.pause },
        { component: 'cri-dockerd', version: versions.criDockerd },
      ],
      { fromReleases: true },
    );
    const origin = Object.fromEntries(stages.map((s) => [s.name, s.origin]));
    expect(origin).toMatchObject({
      kubernetes: 'release',
      runc: 'release',
      containerd: 'release',
      crictl: 'release',
      'cni-plugins': 'release',
      'cri-dockerd': 'source',
      pause: 'source',
    });
    // pause reads its C source from the kubernetes module itself when Kubernetes is downloaded
    expect(stages.find((s) => s.name === 'pause')).toMatchObject({ after: [], env: { KCLUSTER_PAUSE_MODULE: `k8s.io/kubernetes@${KUBERNETES_RELEASES[0]}` } });
  });

  it('downloads each binary through the mirror, checks it, assembles a bundle that verifies, and uses the cache the next time', async () => {
    const cacheDir = join(dir, 'cache');
    const events: BuildEvent[] = [];
    const bundle = await buildBundle({ wanted, cacheDir, root: packageRoot(), fromReleases: { mirrors }, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'stage-built').length).toBe(4);
    const opened = await openBundle(bundle.dir, join(dir, 'verify-cache'));
    const problems = await verifyBundle(opened, new VerifiedFiles(join(dir, 'verify-cache')));
    expect(problems).toEqual([]);
    for (const entry of opened.lock.artifacts) {
      expect(entry.sha256, entry.path).toBe(sha256Of(published.get(`${entry.component}/${entry.name}`)!));
    }
    expect(opened.lock.artifacts.length).toBe(published.size);
    const containerdLog = readFileSync(join(cacheDir, 'logs', `containerd-${versions.containerd}.log`), 'utf8');
    expect(containerdLog).toContain(`containerd: ${server.url}/gh/containerd/containerd/releases/download/${versions.containerd}/`);
    expect(containerdLog).toContain('sha256 checked against');

    const requestsBefore = [...server.requests.values()].reduce((a, b) => a + b, 0);
    const again: BuildEvent[] = [];
    const second = await buildBundle({ wanted, cacheDir, root: packageRoot(), fromReleases: { mirrors }, onEvent: (e) => again.push(e) });
    expect(second.dir).toBe(bundle.dir);
    expect(again.filter((e) => e.type === 'stage-cached').length).toBe(4);
    expect([...server.requests.values()].reduce((a, b) => a + b, 0)).toBe(requestsBefore);
  });

  it('refuses a download whose checksum does not match, names the URL, and caches nothing of that stage', async () => {
    const cacheDir = join(dir, 'cache-corrupt');
    // the runc binary on the mirror changes after its checksum was published
    appendFileSync(join(www, 'gh', 'opencontainers', 'runc', 'releases', 'download', versions.runc, 'runc.amd64'), 'tampered');
    const error = await buildBundle({
      wanted: [{ component: 'runc', version: versions.runc }],
      cacheDir,
      root: packageRoot(),
      fromReleases: { mirrors },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StageFailedError);
    expect((error as StageFailedError).tail).toContain(`runc.amd64`);
    expect((error as StageFailedError).tail).toMatch(/sha256/);
    const out = join(cacheDir, 'out', 'runc');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });
});
