// Release downloads against a loopback HTTP server that stands in for the official release
// locations (mirrors rewrite the URLs to it). The files are stand-ins (small files and
// tarballs with the official names and layouts); what is under test is real: checksum files
// read, each download made once, verified, resumed, cached, and corrupt or missing pieces
// reported by name before any host is touched.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareArtifacts } from '../../../src/kubernetes/artifacts/prepare-artifacts.js';
import { releaseLocation } from '../../../src/kubernetes/artifacts/release-catalog.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { startReleaseServer, type ReleaseServer } from '../../support/release-server.js';
import { publishStandInReleases, sha256Of as sha } from '../../support/stand-in-releases.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-release-'));
const www = join(dir, 'www');
let server: ReleaseServer;

function inventory(extra = '', cacheDir = join(dir, 'cache')): Inventory {
  const text = `cluster:
  artifacts:
    cacheDir: ${cacheDir}
    imageRepository: mirror.lan/k8s
    mirrors: { "https://dl.k8s.io": "${server.url}/k8s", "https://github.com": "${server.url}/gh" }
${extra}ssh: { agent: true }
hosts:
  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }
  - { name: w1, address: 10.0.0.2, roles: [worker] }
`;
  const result = parseInventory(text, join(dir, 'inventory.yaml'), { env: {}, homeDir: dir });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

let published: Map<string, Buffer>;

beforeAll(async () => {
  server = await startReleaseServer(www);
  const inv = inventory();
  published = publishStandInReleases(
    www,
    join(dir, 'staging'),
    requiredArtifacts(inv).filter((a) => a.type === 'binary'),
    inv.cluster.artifacts.mirrors,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('release source (loopback release server with stand-in files)', () => {
  it('downloads each file once, verifies it, extracts archive members, and reuses the cache on the next run', async () => {
    const inv = inventory();
    const prepared = await prepareArtifacts(inv);
    const binaries = prepared.filter((a) => a.type === 'binary');
    expect(binaries.length).toBe(requiredArtifacts(inv).filter((a) => a.type === 'binary').length);
    for (const a of binaries) {
      expect(readFileSync(a.localPath!)).toEqual(published.get(`${a.component}/${a.name}`));
      expect(a.sha256).toBe(sha(published.get(`${a.component}/${a.name}`)!));
    }
    // containerd's three binaries come from one archive, downloaded once.
    const containerdArchive = [...server.requests].filter(([p]) => p.endsWith('.tar.gz') && p.includes('containerd-2.2.9'));
    expect(containerdArchive).toEqual([[expect.stringContaining('containerd-2.2.9-linux-amd64.tar.gz'), 1]]);
    expect([...server.requests.values()].every((n) => n === 1)).toBe(true);
    // imageRepository replaces the registry host and keeps upstream paths and tags.
    expect(prepared.find((a) => a.name === 'coredns')?.reference).toBe('mirror.lan/k8s/coredns/coredns:v1.14.6');
    expect(prepared.find((a) => a.name === 'etcd')?.reference).toBe('mirror.lan/k8s/etcd:3.7.3-0');
    expect(prepared.find((a) => a.name === 'flannel')?.reference).toBe('mirror.lan/k8s/flannel-io/flannel:v0.28.10');
    expect(prepared.find((a) => a.name === 'kube-apiserver')?.hosts).toEqual(['cp1']);

    const before = new Map(server.requests);
    await prepareArtifacts(inv);
    const downloadsAgain = [...server.requests].filter(([p, n]) => !p.includes('sha256') && !p.endsWith('SHA256SUMS') && n !== before.get(p));
    expect(downloadsAgain).toEqual([]);
  });

  it('resumes an interrupted download where it stopped, in the same run, and says so', async () => {
    const cache = join(dir, 'cache-resume');
    const inv = inventory('', cache);
    const kubelet = releaseLocation(
      { component: 'kubernetes', name: 'kubelet', version: inv.cluster.kubernetesVersion, arch: 'amd64', type: 'binary' },
      inv.cluster.artifacts.mirrors,
    )!;
    const path = new URL(kubelet.url).pathname;
    server.cutOnce.set(path, 5_000);
    const lines: string[] = [];
    await prepareArtifacts(inv, { retry: { attempts: 4, firstDelayMs: 1 }, log: (line) => lines.push(line) });
    expect(server.ranges).toContain(`${path} bytes=5000-`);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`kubelet .*: GET ${kubelet.url}: the connection dropped after 5000 bytes .*; attempt 2 of 4 in `)),
    );
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^downloaded ${kubelet.url} .*, resumed at 5000 bytes\\)$`)));
  });

  it('refuses a corrupted file and a missing one, naming each with its expected checksum or URL, and keeps nothing corrupt', async () => {
    const cache = join(dir, 'cache-bad');
    const inv = inventory('', cache);
    const mirrors = inv.cluster.artifacts.mirrors;
    const k8s = inv.cluster.kubernetesVersion;
    const kubectl = releaseLocation({ component: 'kubernetes', name: 'kubectl', version: k8s, arch: 'amd64', type: 'binary' }, mirrors)!;
    const runc = releaseLocation({ component: 'runc', name: 'runc', version: 'v1.4.3', arch: 'amd64', type: 'binary' }, mirrors)!;
    const kubectlFile = join(www, new URL(kubectl.url).pathname);
    const original = readFileSync(kubectlFile);
    const runcFile = join(www, new URL(runc.url).pathname);
    const runcBody = readFileSync(runcFile);
    try {
      writeFileSync(kubectlFile, Buffer.concat([original.subarray(0, 100), Buffer.from('tampered')]));
      rmSync(runcFile);
      const error = await prepareArtifacts(inv).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain('2 artifact problems (release downloads); nothing was installed on any host');
      expect(error?.message).toContain(
        `kubernetes/kubectl ${k8s} (amd64, binary): ${kubectl.url} has sha256 ${sha(readFileSync(kubectlFile))}, expected ${sha(original)}`,
      );
      expect(error?.message).toContain(`runc/runc v1.4.3 (amd64, binary): download failed: ${runc.url} answered HTTP 404`);
      expect(existsSync(join(cache, 'downloads', sha(original)))).toBe(false);
      expect(existsSync(join(cache, 'downloads', `${sha(original)}.part`))).toBe(false);
    } finally {
      writeFileSync(kubectlFile, original);
      writeFileSync(runcFile, runcBody);
    }
  });

  it('says what to do when a component publishes no checksums; images need no repository (upstream names)', async () => {
    const noRepo = parseInventory(
      `cluster:\n  containerRuntime: docker\n  artifacts:\n    cacheDir: ${join(dir, 'c2')}\n    mirrors: { "https://dl.k8s.io": "${server.url}/k8s", "https://github.com": "${server.url}/gh" }\nssh: { agent: true }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n`,
      join(dir, 'i.yaml'),
      { env: {}, homeDir: dir },
    );
    if (!noRepo.ok) throw new Error('bad inventory');
    const error = await prepareArtifacts(noRepo.inventory).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain(
      'cri-dockerd/cri-dockerd v0.4.6 (amd64, binary): its releases publish no checksums, so kcluster cannot verify a download: use source: bundle for it',
    );
    expect(error?.message).toContain('1 artifact problem (release downloads)');
  });
});
