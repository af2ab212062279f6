// The words of artifact handling. An artifact is one file a host needs: a binary installed at
// a path, or a container image archive imported into the runtime. A source says where each
// comes from (official release locations, or a bundle); the controller fetches and verifies
// every piece once, before any host is touched, then pushes it where it is needed.

export type ArtifactType = 'binary' | 'image';

export interface ArtifactId {
  /** The release it belongs to: kubernetes, etcd, containerd, cni-plugins, ... */
  readonly component: string;
  /** File name (binaries) or image name (images): kubelet, bridge, kube-proxy, pause. */
  readonly name: string;
  readonly version: string;
  readonly arch: string;
  readonly type: ArtifactType;
}

/** What an inventory needs, and on which hosts. */
export interface RequiredArtifact extends ArtifactId {
  readonly hosts: readonly string[];
  /** Binaries: where it is installed on the host. */
  readonly installPath?: string;
}

/** Where a fetched artifact came from, for `artifacts list` and for error messages. */
export type ArtifactOrigin =
  | { readonly kind: 'bundle'; readonly bundle: string; readonly path: string }
  | { readonly kind: 'release'; readonly url: string; readonly member?: string }
  /** Release images are pulled by the container runtime from this repository. */
  | { readonly kind: 'registry'; readonly reference: string }
  /** kcluster's own programs with source: release (kcluster-apiproxy): built on the controller from this source folder. */
  | { readonly kind: 'built'; readonly source: string };

/** A required artifact, fetched to the controller and verified. */
export interface PreparedArtifact extends RequiredArtifact {
  readonly origin: ArtifactOrigin;
  /** Verified file on the controller; absent for images the runtime pulls itself. */
  readonly localPath?: string;
  /** sha256 of the file that lands on the host (binary, or image archive). */
  readonly sha256?: string;
  readonly size?: number;
  /** Images: the full reference manifests use. */
  readonly reference?: string;
  /** Images from archives: the image config digest ("sha256:..."), its identity in any runtime. */
  readonly imageId?: string;
}

export const artifactLabel = (a: ArtifactId): string => `${a.component}/${a.name} ${a.version} (${a.arch}, ${a.type})`;

/** A piece is missing, corrupt or unobtainable: names it and says what to do. */
export class ArtifactError extends Error {
  /** The inventory key the problem is with, when it is one (its file:line:col goes with the message). */
  readonly inventoryKey: readonly string[] | undefined;

  constructor(message: string, inventoryKey?: readonly string[]) {
    super(message);
    this.name = 'ArtifactError';
    this.inventoryKey = inventoryKey;
  }
}
