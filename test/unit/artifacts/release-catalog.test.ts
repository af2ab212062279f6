import { describe, expect, it } from 'vitest';
import { checksumFor, releaseLocation } from '../../../src/kubernetes/artifacts/release-catalog.js';

const id = { component: 'containerd', name: 'ctr', version: 'v2.2.9', arch: 'amd64', type: 'binary' } as const;
const sha = 'a'.repeat(64);

describe('release locations and checksum files', () => {
  it('fills version and architecture into the official URL and names the archive member', () => {
    expect(releaseLocation(id, {})).toEqual({
      url: 'https://github.com/containerd/containerd/releases/download/v2.2.9/containerd-2.2.9-linux-amd64.tar.gz',
      checksumUrl: 'https://github.com/containerd/containerd/releases/download/v2.2.9/containerd-2.2.9-linux-amd64.tar.gz.sha256sum',
      member: 'bin/ctr',
    });
    expect(releaseLocation({ ...id, component: 'kubernetes', name: 'kubelet', version: 'v1.35.8' }, {})?.url).toBe(
      'https://dl.k8s.io/release/v1.35.8/bin/linux/amd64/kubelet',
    );
  });

  it('rewrites URL prefixes through mirrors, the longest matching prefix first', () => {
    const mirrors = { 'https://github.com': 'http://m.lan/gh', 'https://github.com/containerd': 'http://m.lan/ctrd' };
    expect(releaseLocation(id, mirrors)?.url).toBe('http://m.lan/ctrd/containerd/releases/download/v2.2.9/containerd-2.2.9-linux-amd64.tar.gz');
    expect(releaseLocation({ ...id, component: 'runc', name: 'runc', version: 'v1.4.3' }, mirrors)?.checksumUrl).toBe(
      'http://m.lan/gh/opencontainers/runc/releases/download/v1.4.3/runc.sha256sum',
    );
  });

  it('knows no location for a component without published checksums', () => {
    expect(releaseLocation({ ...id, component: 'cri-dockerd', name: 'cri-dockerd' }, {})).toBeUndefined();
  });

  it('reads a bare hash, "HASH  NAME" and "HASH *NAME" lines, matching the file name only', () => {
    expect(checksumFor(`${sha}\n`, 'https://x/y/kubelet')).toBe(sha);
    const b = 'b'.repeat(64);
    const list = `${sha}  runc.arm64\n${b} *runc.amd64\n`;
    expect(checksumFor(list, 'https://x/runc.amd64')).toBe(b);
    expect(checksumFor(`${b}  ./dist/etcd-v3.6.16-linux-amd64.tar.gz\n`, 'https://x/etcd-v3.6.16-linux-amd64.tar.gz')).toBe(b);
    expect(checksumFor(list, 'https://x/runc.s390x')).toBeUndefined();
    expect(checksumFor('not a checksum', 'https://x/kubelet')).toBeUndefined();
  });
});
