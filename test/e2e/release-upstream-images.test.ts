// End to end, `source: release` offline with upstream image names (issue 29): no bundle on the
// hosts and no imageRepository. The binaries come from a loopback server laid out like the
// release pages (the bundle's real binaries, with published-style checksum files), reached
// through cluster.artifacts.mirrors; the images from a local registry on the lab bridge that
// serves the bundle's images under their UPSTREAM names (registry.k8s.io/etcd:3.7.3-0,
// ghcr.io/flannel-io/flannel:v0.28.10, ...), which containerd reaches through cluster.registries
// mirrors for registry.k8s.io and ghcr.io. Two control planes and no load balancer, so every
// node runs kcluster-apiproxy, built on the controller with its Go. Asserts: the three nodes
// Ready, every pod runs the image by its upstream name, the registry served them, and a second
// apply changes nothing.
// Lab name and subnet: KCLUSTER_E2E_LAB (default kcerel) and KCLUSTER_E2E_SUBNET (10.231.22.0/24).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLayout, startRegistry, type Registry } from '../conformance/registry.mjs';
import { UPSTREAM_IMAGES, upstreamImageReference } from '../../src/kubernetes/artifacts/component-versions.js';
import { kcluster } from '../integration/support/test-lab.js';
import { startReleaseServer, type ReleaseServer } from '../support/release-server.js';
import { publishStandInReleases } from '../support/stand-in-releases.js';
import { bundleDir, bundleEntries, changesIn, kubectlBinary, newestKubernetesVersion, recapOf, until } from './support/e2e-support.js';

const run = promisify(execFile);
const NAME = process.env['KCLUSTER_E2E_LAB'] ?? 'kcerel';
const SUBNET = process.env['KCLUSTER_E2E_SUBNET'] ?? '10.231.22.0/24';
const BRIDGE = `${SUBNET.split('.').slice(0, 3).join('.')}.1`;
const labDir = join(homedir(), '.kcluster', 'labs', NAME);
const work = mkdtempSync(join(tmpdir(), 'kc-release-upstream-'));
const kubeconfig = join(work, 'admin.conf');
const inventory = join(work, 'inventory.yaml');
const kubectl = (...args: string[]) => run(kubectlBinary(), ['--kubeconfig', kubeconfig, '--request-timeout=20s', ...args]).then((r) => r.stdout);
let releases: ReleaseServer | undefined;
let registry: Registry | undefined;
const layouts: { remove: () => void }[] = [];

/** The bundle's images of the newest release, by upstream repository and tag. */
function upstreamLayouts(): Map<string, Map<string, ReturnType<typeof openLayout>>> {
  const k8s = newestKubernetesVersion();
  const byRepository = new Map<string, Map<string, ReturnType<typeof openLayout>>>();
  const images = bundleEntries().filter((e) => e.path.startsWith('images/') && UPSTREAM_IMAGES[e.name] !== undefined);
  for (const name of Object.keys(UPSTREAM_IMAGES)) {
    const candidates = images.filter((e) => e.name === name);
    const entry = candidates.find((e) => e.version === k8s) ?? candidates.sort((a, b) => b.version.localeCompare(a.version, 'en', { numeric: true }))[0];
    if (!entry) throw new Error(`the bundle has no image ${name}`);
    const reference = upstreamImageReference(name, entry.version);
    const withoutHost = reference.slice(reference.indexOf('/') + 1);
    const colon = withoutHost.lastIndexOf(':');
    const layout = openLayout(join(bundleDir(), entry.path));
    layouts.push(layout);
    const tags = byRepository.get(withoutHost.slice(0, colon)) ?? new Map();
    tags.set(withoutHost.slice(colon + 1), layout);
    byRepository.set(withoutHost.slice(0, colon), tags);
  }
  return byRepository;
}

beforeAll(async () => {
  bundleDir();
  await kcluster(['lab', 'down', '--name', NAME]);
  const up = await kcluster(['lab', 'up', '--name', NAME, '--hosts', '3', '--control-planes', '2', '--privileged', '--subnet', SUBNET]);
  if (up.code !== 0) throw new Error(`lab up failed: ${up.stderr}`);

  releases = await startReleaseServer(join(work, 'www'));
  const mirrors = { 'https://dl.k8s.io': `${releases.url}/k8s`, 'https://github.com': `${releases.url}/gh` };
  const doc = parse(readFileSync(join(labDir, 'inventory.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;
  const byRepository = upstreamLayouts();
  registry = await startRegistry({
    host: BRIDGE,
    layoutFor: (repository: string, reference: string | undefined) => {
      const tags = byRepository.get(repository);
      if (!tags) return undefined;
      if (reference !== undefined) return tags.get(reference) ?? [...tags.values()].find((l) => l.digest === reference);
      // A blob request names its repository only: any tag of it may hold the blob.
      return {
        blob: (digest: string) => {
          for (const layout of tags.values()) {
            try {
              return layout.blob(digest);
            } catch {
              // not in this one
            }
          }
          throw new Error(`no blob ${digest}`);
        },
      };
    },
  });
  doc['cluster'] = {
    ...doc['cluster'],
    artifacts: { source: 'release', mirrors, cacheDir: join(work, 'cache') },
    registries: { 'registry.k8s.io': { mirrors: [registry.url] }, 'ghcr.io': { mirrors: [registry.url] } },
  };
  writeFileSync(inventory, stringify(doc));
  // The release layout, from the bundle's real binaries (what `apply` downloads and checks).
  const list = await kcluster(['artifacts', 'list', '-i', inventory, '-o', 'json']);
  const binaries = (JSON.parse(list.stdout) as { component: string; name: string; version: string; arch: string; type: string }[]).filter(
    (a) => a.type === 'binary' && a.component !== 'kcluster-apiproxy',
  );
  const entries = bundleEntries();
  publishStandInReleases(
    join(work, 'www'),
    join(work, 'staging'),
    binaries.map((b) => ({ ...b, type: 'binary' as const })),
    mirrors,
    (id) => join(bundleDir(), entries.find((e) => e.component === id.component && e.name === id.name && e.version === id.version)!.path),
  );
}, 300_000);

afterAll(async () => {
  await registry?.close();
  await releases?.close();
  for (const layout of layouts) layout.remove();
  if (!process.env['KCLUSTER_KEEP_E2E_LAB']) await kcluster(['lab', 'down', '--name', NAME]);
  rmSync(work, { recursive: true, force: true });
});

describe('source: release offline, images by their upstream names through containerd mirrors', () => {
  it('installs with no bundle and no imageRepository; every pod runs its upstream image; converges', async () => {
    const validate = await kcluster(['validate', '-i', inventory]);
    expect(validate.code, validate.stderr).toBe(0);
    const started = Date.now();
    const apply = await kcluster(['apply', '-i', inventory]);
    expect(apply.code, apply.stderr + apply.stdout.slice(-3000)).toBe(0);
    // Two control planes and no load balancer: kcluster-apiproxy, published nowhere, built here with Go.
    expect(apply.stderr + apply.stdout).toMatch(/built kcluster-apiproxy from .*src\/kubernetes\/apiproxy with go1\.\d+/);
    expect((await kcluster(['kubeconfig', '-i', inventory, '--file', kubeconfig])).code).toBe(0);
    await until('3 nodes Ready', 240_000, async () => {
      const nodes = JSON.parse(await kubectl('get', 'nodes', '-o', 'json')) as { items: { status: { conditions: { type: string; status: string }[] } }[] };
      return nodes.items.length === 3 && nodes.items.every((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
        ? true
        : undefined;
    });
    console.log(
      `release mode through mirrors: empty hosts to 3 nodes Ready (2 control planes, no load balancer) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    const k8s = newestKubernetesVersion();
    // Every component's pod (the static pods' mirror pods appear a little after the node is Ready), all Running.
    const wanted = [
      /^registry\.k8s\.io\/etcd:\d+\.\d+\.\d+-0$/,
      /^registry\.k8s\.io\/kube-apiserver:/,
      /^registry\.k8s\.io\/kube-controller-manager:/,
      /^registry\.k8s\.io\/kube-scheduler:/,
      /^registry\.k8s\.io\/kube-proxy:/,
      /^registry\.k8s\.io\/coredns\/coredns:v/,
      /^registry\.k8s\.io\/metrics-server\/metrics-server:v/,
      /^registry\.k8s\.io\/networking\/kube-network-policies:v/,
      /^ghcr\.io\/flannel-io\/flannel:v/,
    ];
    const images = await until('a Running pod of every component', 240_000, async () => {
      const list = JSON.parse(await kubectl('get', 'pods', '-A', '-o', 'json')) as {
        items: { status: { phase: string }; spec: { containers: { image: string }[] } }[];
      };
      const seen = [...new Set(list.items.flatMap((p) => p.spec.containers.map((c) => c.image)))].sort();
      return list.items.every((p) => p.status.phase === 'Running') && wanted.every((w) => seen.some((i) => w.test(i))) ? seen : undefined;
    });
    expect(images).toEqual(
      expect.arrayContaining([
        `registry.k8s.io/kube-apiserver:${k8s}`,
        `registry.k8s.io/kube-proxy:${k8s}`,
        `registry.k8s.io/kube-scheduler:${k8s}`,
        `registry.k8s.io/kube-controller-manager:${k8s}`,
      ]),
    );
    expect(
      images.every((i) => i.startsWith('registry.k8s.io/') || i.startsWith('ghcr.io/flannel-io/')),
      images.join(' '),
    ).toBe(true);
    expect(registry!.served.manifests).toBeGreaterThanOrEqual(8);
    expect(registry!.served.blobs).toBeGreaterThan(0);
    console.log(
      `registry: ${registry!.served.manifests} manifests, ${registry!.served.blobs} blobs served, ${registry!.served.notFound} not found; images: ${images.join(' ')}`,
    );

    // Every binary came from the release layout (downloaded and checked on the controller).
    expect([...releases!.requests.keys()].some((p) => p.endsWith('/kubelet'))).toBe(true);

    const again = await kcluster(['apply', '-i', inventory, '--output', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      recapOf(again.stdout).map((h) => h.changed),
      changesIn(again.stdout),
    ).toEqual([0, 0, 0]);
  }, 1_200_000);
});
