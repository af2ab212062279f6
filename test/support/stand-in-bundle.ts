// Builds a small bundle for tests: a stand-in file per binary, a real (tiny) OCI image
// archive per image, and the lock file, in the layout `kcluster bundle build` writes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RequiredArtifact } from '../../src/kubernetes/artifacts/artifact.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** An OCI image layout tar holding one image named `reference`; returns its config digest. */
export function writeOciArchive(file: string, reference: string, payload: string): string {
  const work = `${file}.d`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'blobs', 'sha256'), { recursive: true });
  mkdirSync(join(work, 'rootfs'), { recursive: true });
  writeFileSync(join(work, 'rootfs', 'payload'), payload);
  execFileSync('tar', ['-czf', join(work, 'layer.tgz'), '-C', join(work, 'rootfs'), 'payload']);
  const layer = readFileSync(join(work, 'layer.tgz'));
  const blob = (data: Buffer | string): string => {
    const digest = sha(data);
    writeFileSync(join(work, 'blobs', 'sha256', digest), data);
    return `sha256:${digest}`;
  };
  const layerDigest = blob(layer);
  const config = JSON.stringify({
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/payload'] },
    rootfs: { type: 'layers', diff_ids: [`sha256:${sha(execFileSync('gzip', ['-dc', join(work, 'layer.tgz')]))}`] },
  });
  const configDigest = blob(config);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layerDigest, size: layer.length }],
  });
  const manifestDigest = blob(manifest);
  writeFileSync(join(work, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  writeFileSync(
    join(work, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: manifestDigest,
          size: manifest.length,
          annotations: { 'io.containerd.image.name': reference },
        },
      ],
    }),
  );
  rmSync(join(work, 'rootfs'), { recursive: true });
  rmSync(join(work, 'layer.tgz'));
  mkdirSync(dirname(file), { recursive: true });
  execFileSync('tar', ['-cf', file, '-C', work, 'oci-layout', 'index.json', 'blobs']);
  rmSync(work, { recursive: true });
  return configDigest;
}

/** A bundle directory holding every artifact in `needs`; returns image IDs by name. */
export function writeStandInBundle(root: string, needs: readonly RequiredArtifact[]): Map<string, string> {
  const imageIds = new Map<string, string>();
  const artifacts = needs.map((need) => {
    if (need.type === 'binary') {
      const path = `${need.component}/${need.version}/${need.name}`;
      const body = Buffer.from(`#!/bin/sh\necho stand-in ${need.name} ${need.version}\n`);
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), body, { mode: 0o755 });
      return { component: need.component, name: need.name, version: need.version, arch: need.arch, type: 'binary', path, size: body.length, sha256: sha(body) };
    }
    const path = `images/${need.name}-${need.version}.tar`;
    const reference = `kcluster.local/${need.name}:${need.version}`;
    imageIds.set(need.name, writeOciArchive(join(root, path), reference, `stand-in ${need.name}`));
    const body = readFileSync(join(root, path));
    return {
      component: need.component,
      name: need.name,
      version: need.version,
      arch: need.arch,
      type: 'image',
      format: 'oci',
      reference,
      path,
      size: body.length,
      sha256: sha(body),
    };
  });
  writeFileSync(join(root, 'kcluster-bundle.json'), JSON.stringify({ kind: 'kcluster-bundle', formatVersion: 1, arch: 'amd64', artifacts }, null, 2));
  return imageIds;
}
