// The official release locations of every binary kcluster installs: a URL template per
// component (version and architecture filled in), the published checksum file next to it, and
// for archives the member that holds the binary. `cluster.artifacts.mirrors` rewrites URL
// prefixes, for a local mirror or an internal file server.
import type { ArtifactId } from './artifact.js';

export interface ReleaseLocation {
  /** What to download: the binary itself, or an archive that contains it. */
  readonly url: string;
  /** Published checksum file that covers `url`. */
  readonly checksumUrl: string;
  /** Path of the binary inside the archive, when `url` is an archive (.tar.gz / .tgz). */
  readonly member?: string;
}

type Template = (id: ArtifactId) => ReleaseLocation | undefined;

const gh = (repo: string): string => `https://github.com/${repo}/releases/download`;
const bare = (v: string): string => v.replace(/^v/, '');

const TEMPLATES: Readonly<Record<string, Template>> = {
  kubernetes: (a) => {
    const url = `https://dl.k8s.io/release/${a.version}/bin/linux/${a.arch}/${a.name}`;
    return { url, checksumUrl: `${url}.sha256` };
  },
  containerd: (a) => {
    const url = `${gh('containerd/containerd')}/${a.version}/containerd-${bare(a.version)}-linux-${a.arch}.tar.gz`;
    return { url, checksumUrl: `${url}.sha256sum`, member: `bin/${a.name}` };
  },
  runc: (a) => ({ url: `${gh('opencontainers/runc')}/${a.version}/runc.${a.arch}`, checksumUrl: `${gh('opencontainers/runc')}/${a.version}/runc.sha256sum` }),
  crictl: (a) => {
    const url = `${gh('kubernetes-sigs/cri-tools')}/${a.version}/crictl-${a.version}-linux-${a.arch}.tar.gz`;
    return { url, checksumUrl: `${url}.sha256`, member: 'crictl' };
  },
  'cni-plugins': (a) => {
    const url = `${gh('containernetworking/plugins')}/${a.version}/cni-plugins-linux-${a.arch}-${a.version}.tgz`;
    return { url, checksumUrl: `${url}.sha256`, member: `./${a.name}` };
  },
  etcd: (a) => ({
    url: `${gh('etcd-io/etcd')}/${a.version}/etcd-${a.version}-linux-${a.arch}.tar.gz`,
    checksumUrl: `${gh('etcd-io/etcd')}/${a.version}/SHA256SUMS`,
    member: `etcd-${a.version}-linux-${a.arch}/${a.name}`,
  }),
};

/** Components whose releases publish no checksum file: only a bundle can provide them. */
export const WITHOUT_PUBLISHED_CHECKSUMS = ['cri-dockerd'] as const;

export function releaseLocation(id: ArtifactId, mirrors: Readonly<Record<string, string>>): ReleaseLocation | undefined {
  const template = TEMPLATES[id.component];
  const location = template?.(id);
  if (!location) return undefined;
  const rewrite = (url: string): string => {
    // The longest matching prefix wins, so a specific mirror can override a general one.
    const prefix = Object.keys(mirrors)
      .filter((p) => url.startsWith(p))
      .sort((a, b) => b.length - a.length)[0];
    return prefix === undefined ? url : `${mirrors[prefix]}${url.slice(prefix.length)}`;
  };
  return { ...location, url: rewrite(location.url), checksumUrl: rewrite(location.checksumUrl) };
}

/**
 * The sha256 a checksum file gives for `url`: either the file holds only a hash, or lines of
 * "HASH  NAME" / "HASH *NAME" where NAME is the URL's file name (any leading path ignored).
 */
export function checksumFor(text: string, url: string): string | undefined {
  const fileName = url.slice(url.lastIndexOf('/') + 1);
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const only = lines.length === 1 ? /^([0-9a-fA-F]{64})$/.exec(lines[0]!) : null;
  if (only) return only[1]!.toLowerCase();
  for (const line of lines) {
    const match = /^([0-9a-fA-F]{64})\s+\*?(.+)$/.exec(line);
    if (match && match[2]!.slice(match[2]!.lastIndexOf('/') + 1) === fileName) return match[1]!.toLowerCase();
  }
  return undefined;
}
