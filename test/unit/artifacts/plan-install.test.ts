// Pure plans of the host-side artifact tasks, and the parsers of their facts.
import { describe, expect, it } from 'vitest';
import type { PreparedArtifact } from '../../../src/kubernetes/artifacts/artifact.js';
import { parseInstalledBinary, recordPathFor } from '../../../src/orchestrator/facts/installed-binary.js';
import { imageIn, parseContainerdImages, parseRuntimeImage } from '../../../src/kubernetes/facts/runtime-image.js';
import { planInstallBinary } from '../../../src/kubernetes/artifacts/tasks/install-binary.js';
import { planImportImage } from '../../../src/kubernetes/artifacts/tasks/import-image.js';

const sha = 'a'.repeat(64);
const kubelet: PreparedArtifact = {
  component: 'kubernetes',
  name: 'kubelet',
  version: 'v1.35.8',
  arch: 'amd64',
  type: 'binary',
  hosts: ['n1'],
  installPath: '/usr/local/bin/kubelet',
  origin: { kind: 'bundle', bundle: '/b', path: 'k/kubelet' },
  localPath: '/b/k/kubelet',
  sha256: sha,
};
const pause: PreparedArtifact = {
  component: 'pause',
  name: 'pause',
  version: '3.10.1',
  arch: 'amd64',
  type: 'image',
  hosts: ['n1'],
  origin: { kind: 'bundle', bundle: '/b', path: 'images/pause.tar' },
  localPath: '/b/images/pause.tar',
  sha256: sha,
  reference: 'kcluster.local/pause:3.10.1',
  imageId: `sha256:${'c'.repeat(64)}`,
};

describe('installing binaries', () => {
  it('installs when absent, replaces on another sha256, fixes only attributes, else nothing', () => {
    expect(planInstallBinary(kubelet, { exists: false })).toMatchObject({ kind: 'create', summary: 'install kubelet v1.35.8 at /usr/local/bin/kubelet' });
    const same = { exists: true, regular: true, size: 1, mode: '0755', owner: 'root', group: 'root', sha256: sha };
    expect(planInstallBinary(kubelet, same)).toEqual({ kind: 'none', reason: '/usr/local/bin/kubelet is kubelet v1.35.8' });
    expect(planInstallBinary(kubelet, { ...same, sha256: 'b'.repeat(64) })).toMatchObject({ kind: 'update', payload: { attributesOnly: false } });
    expect(planInstallBinary(kubelet, { ...same, mode: '0777' })).toMatchObject({
      kind: 'update',
      summary: 'fix /usr/local/bin/kubelet: mode 0777 -> 0755, owner root:root -> root:root',
      payload: { attributesOnly: true },
    });
    expect(planInstallBinary(kubelet, { exists: true, regular: false })).toMatchObject({ kind: 'update' });
  });

  it('parses the binary fact and names its record file after the path', () => {
    expect(parseInstalledBinary('absent\n')).toEqual({ exists: false });
    expect(parseInstalledBinary(`123|755|root|root|${sha}\n`)).toEqual({
      exists: true,
      regular: true,
      size: 123,
      mode: '0755',
      owner: 'root',
      group: 'root',
      sha256: sha,
    });
    expect(() => parseInstalledBinary('garbage')).toThrow(/unexpected binary state/);
    expect(recordPathFor('/usr/local/bin/kubelet')).toBe('/var/lib/kcluster/artifacts/_usr_local_bin_kubelet.sha256');
  });
});

describe('importing images', () => {
  it('imports when missing, replaces another image under the name, pins an unpinned one, else nothing', () => {
    expect(planImportImage(pause, 'containerd', { state: 'absent' })).toMatchObject({
      kind: 'create',
      summary: 'import kcluster.local/pause:3.10.1 into containerd',
    });
    expect(planImportImage(pause, 'containerd', { state: 'runtime-down', detail: '' })).toMatchObject({ kind: 'create' });
    expect(planImportImage(pause, 'containerd', { state: 'present', imageId: `sha256:${'d'.repeat(64)}`, pinned: true })).toMatchObject({
      kind: 'update',
      payload: { pinOnly: false },
    });
    expect(planImportImage(pause, 'containerd', { state: 'present', imageId: pause.imageId!, pinned: false })).toMatchObject({
      kind: 'update',
      payload: { pinOnly: true },
    });
    expect(planImportImage(pause, 'containerd', { state: 'present', imageId: pause.imageId!, pinned: true }).kind).toBe('none');
  });

  it('parses the runtime image fact', () => {
    expect(parseRuntimeImage(`present sha256:${'c'.repeat(64)} pinned\n`)).toEqual({ state: 'present', imageId: `sha256:${'c'.repeat(64)}`, pinned: true });
    expect(parseRuntimeImage('present unknown unpinned')).toEqual({ state: 'present', pinned: false });
    expect(parseRuntimeImage('runtime-down\nctr: connection refused')).toEqual({ state: 'runtime-down', detail: 'ctr: connection refused' });
    expect(parseRuntimeImage('no-runtime')).toEqual({ state: 'no-runtime' });
    expect(() => parseRuntimeImage('what')).toThrow(/unexpected image state/);
  });
});

describe('containerd images: one crictl list per host', () => {
  const id = `sha256:${'d'.repeat(64)}`;
  const listed = parseContainerdImages(
    `listed\n${JSON.stringify({
      images: [
        { id, repoTags: ['kcluster.local/coredns:v1.14.6'], pinned: true },
        { id: 'sha256:short', repoTags: ['kcluster.local/pause:3.10'], pinned: false },
      ],
    })}\n`,
  );
  it('reads each tag with its image ID and pin', () => {
    expect(imageIn(listed, 'kcluster.local/coredns:v1.14.6')).toEqual({ state: 'present', imageId: id, pinned: true });
    expect(imageIn(listed, 'kcluster.local/pause:3.10')).toEqual({ state: 'present', pinned: false });
    expect(imageIn(listed, 'kcluster.local/etcd:v3.7.3')).toEqual({ state: 'absent' });
  });
  it('says why it cannot list', () => {
    expect(imageIn(parseContainerdImages('no-runtime'), 'x')).toEqual({ state: 'no-runtime' });
    expect(imageIn(parseContainerdImages('no-crictl'), 'x')).toMatchObject({ state: 'runtime-down', detail: expect.stringContaining('crictl') });
    expect(imageIn(parseContainerdImages('runtime-down\nconnection refused'), 'x')).toEqual({ state: 'runtime-down', detail: 'connection refused' });
    expect(() => parseContainerdImages('what')).toThrow(/unexpected image list/);
  });
});
