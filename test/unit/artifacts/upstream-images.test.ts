// Release mode pulls each image as its project publishes it (issue 29): the Kubernetes
// images, pause, CoreDNS and etcd under registry.k8s.io's names and tags (etcd's tag is
// "<version>-0", without the "v"), flannel from ghcr.io/flannel-io, for every minor of the version
// table; imageRepository replaces the registry host and keeps paths and tags. kcluster-apiproxy,
// published nowhere, is built on the controller with its Go, or refused naming the ways out.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildApiproxy, checkGoForApiproxy, findGo } from '../../../src/kubernetes/artifacts/apiproxy-build.js';
import { COMPONENT_VERSIONS, KUBERNETES_RELEASES, UPSTREAM_IMAGES, upstreamImageReference } from '../../../src/kubernetes/artifacts/component-versions.js';
import { prepareArtifacts } from '../../../src/kubernetes/artifacts/prepare-artifacts.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-upstream-images-'));

function inventory(
  cluster: string,
  hosts = '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, roles: [worker] }\n',
  artifacts = '',
): Inventory {
  const result = parseInventory(
    `cluster:\n  artifacts: { cacheDir: ${join(dir, 'cache')}${artifacts} }\n${cluster}ssh: { agent: true }\nhosts:\n${hosts}`,
    join(dir, 'inventory.yaml'),
    { env: {}, homeDir: dir },
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inventory;
}

const imagesOf = async (inv: Inventory): Promise<Record<string, string>> =>
  Object.fromEntries((await prepareArtifacts(inv, { resolveOnly: true })).filter((a) => a.type === 'image').map((a) => [a.name, a.reference!]));

describe('upstream image references (source: release)', () => {
  it('each supported minor: every image as registry.k8s.io and flannel publish it, no imageRepository needed', async () => {
    const expected: Record<string, Record<string, string>> = {
      'v1.37.2': { etcd: 'registry.k8s.io/etcd:3.7.3-0', coredns: 'registry.k8s.io/coredns/coredns:v1.14.6', pause: 'registry.k8s.io/pause:3.10.2' },
      'v1.36.5': { etcd: 'registry.k8s.io/etcd:3.6.16-0', coredns: 'registry.k8s.io/coredns/coredns:v1.14.2', pause: 'registry.k8s.io/pause:3.10.2' },
      'v1.35.8': { etcd: 'registry.k8s.io/etcd:3.6.16-0', coredns: 'registry.k8s.io/coredns/coredns:v1.13.1', pause: 'registry.k8s.io/pause:3.10.1' },
    };
    expect(Object.keys(expected)).toEqual([...KUBERNETES_RELEASES]);
    for (const k8s of KUBERNETES_RELEASES) {
      const images = await imagesOf(inventory(`  kubernetesVersion: ${k8s}\n`));
      expect(images).toEqual({
        ...expected[k8s],
        'kube-apiserver': `registry.k8s.io/kube-apiserver:${k8s}`,
        'kube-controller-manager': `registry.k8s.io/kube-controller-manager:${k8s}`,
        'kube-scheduler': `registry.k8s.io/kube-scheduler:${k8s}`,
        'kube-proxy': `registry.k8s.io/kube-proxy:${k8s}`,
        flannel: 'ghcr.io/flannel-io/flannel:v0.28.10',
        'metrics-server': 'registry.k8s.io/metrics-server/metrics-server:v0.9.0',
        'kube-network-policies': 'registry.k8s.io/networking/kube-network-policies:v0.8.0',
      });
    }
  });

  it('every image any inventory needs has an upstream reference (Docker runtime, cni: none too)', () => {
    for (const cluster of ['', '  containerRuntime: docker\n', '  cni: none\n', '  localPathStorage: { enabled: true }\n']) {
      for (const a of requiredArtifacts(inventory(cluster)).filter((x) => x.type === 'image')) expect(UPSTREAM_IMAGES[a.name], a.name).toBeDefined();
    }
    expect(Object.keys(COMPONENT_VERSIONS).length).toBe(KUBERNETES_RELEASES.length);
  });

  it('imageRepository: a mirror that keeps upstream paths and tags (the registry host replaced, as kubeadm does)', async () => {
    const images = await imagesOf(inventory('', undefined, ', imageRepository: mirror.example.com:5000/upstream'));
    expect(images['etcd']).toBe('mirror.example.com:5000/upstream/etcd:3.7.3-0');
    expect(images['coredns']).toBe('mirror.example.com:5000/upstream/coredns/coredns:v1.14.6');
    expect(images['flannel']).toBe('mirror.example.com:5000/upstream/flannel-io/flannel:v0.28.10');
    expect(images['kube-apiserver']).toBe('mirror.example.com:5000/upstream/kube-apiserver:v1.37.2');
    expect(upstreamImageReference('pause', '3.10.2', 'm.lan')).toBe('m.lan/pause:3.10.2');
  });

  it('cni: none: no flannel image', async () => {
    expect(Object.keys(await imagesOf(inventory('  cni: none\n')))).not.toContain('flannel');
  });

  it('metricsServer.enabled: false: no metrics-server image', async () => {
    expect(Object.keys(await imagesOf(inventory('  metricsServer: { enabled: false }\n')))).not.toContain('metrics-server');
    expect(await imagesOf(inventory('', undefined, ', imageRepository: m.lan'))).toHaveProperty('metrics-server', 'm.lan/metrics-server/metrics-server:v0.9.0');
  });

  it('localPathStorage: off by default, no image; on: rancher/local-path-provisioner as rancher publishes it', async () => {
    expect(Object.keys(await imagesOf(inventory('')))).not.toContain('local-path-provisioner');
    const on = '  localPathStorage: { enabled: true }\n';
    expect(await imagesOf(inventory(on))).toHaveProperty('local-path-provisioner', 'docker.io/rancher/local-path-provisioner:v0.0.30');
    expect(await imagesOf(inventory(on, undefined, ', imageRepository: m.lan'))).toHaveProperty(
      'local-path-provisioner',
      'm.lan/rancher/local-path-provisioner:v0.0.30',
    );
  });

  it('networkPolicy.enabled: false: no kube-network-policies image', async () => {
    expect(Object.keys(await imagesOf(inventory('  networkPolicy: { enabled: false }\n')))).not.toContain('kube-network-policies');
    expect(await imagesOf(inventory('', undefined, ', imageRepository: m.lan'))).toHaveProperty(
      'kube-network-policies',
      'm.lan/networking/kube-network-policies:v0.8.0',
    );
  });
});

describe('kcluster-apiproxy with source: release (built on the controller)', () => {
  const what = 'kcluster-apiproxy/kcluster-apiproxy 2 (amd64, binary)';

  it('no Go, or a Go too old: refused, naming the ways out', async () => {
    await expect(checkGoForApiproxy(what, { KCLUSTER_GO: join(dir, 'nowhere', 'go') })).rejects.toThrow(
      /install Go \(or point KCLUSTER_GO at it\), set cluster\.apiEndpoint\.host to your load balancer, or use source: bundle/,
    );
    const old = join(dir, 'old-go');
    writeFileSync(old, '#!/bin/sh\necho go1.21.4\n');
    chmodSync(old, 0o755);
    await expect(checkGoForApiproxy(what, { KCLUSTER_GO: old })).rejects.toThrow(/is go1\.21\.4: install Go/);
  });

  it.skipIf(findGo() === undefined)(
    'builds a static linux binary once, offline, and reuses it',
    async () => {
      const cache = join(dir, 'apiproxy-cache');
      const lines: string[] = [];
      const first = await buildApiproxy(cache, 'amd64', what, { log: (l) => lines.push(l) });
      expect(lines).toEqual([expect.stringMatching(/^built kcluster-apiproxy from .*src\/kubernetes\/apiproxy with go1\.\d+/)]);
      expect(execFileSync(first, ['-version'], { encoding: 'utf8' })).toBe('kcluster-apiproxy 2\n');
      expect(await buildApiproxy(cache, 'amd64', what, { log: (l) => lines.push(l) })).toBe(first);
      expect(lines.length).toBe(1);
    },
    120_000,
  );

  it.skipIf(findGo() === undefined)('several control planes and no load balancer: prepared from the build, with its sha256', async () => {
    const hosts = '  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: cp2, address: 10.0.0.3, roles: [control-plane] }\n';
    const resolved = (await prepareArtifacts(inventory('', hosts), { resolveOnly: true })).find((a) => a.component === 'kcluster-apiproxy');
    expect(resolved?.origin).toEqual({ kind: 'built', source: expect.stringMatching(/src\/kubernetes\/apiproxy$/) });
    expect(resolved?.hosts).toEqual(['cp1', 'cp2']);
  });
});
