// The one version table: which Kubernetes releases kcluster knows, which version of each
// companion component goes with each minor, and the toolchain `kcluster bundle build` builds
// them with (recipes in bundle/recipes). The default Kubernetes version is the first release
// (test/unit/artifacts/component-versions.test.ts keeps inventory/defaults.ts equal to it), so
// the default is what the end-to-end tests prove.

/** The newest patch kcluster knows of each minor, newest minor first. */
export const KUBERNETES_RELEASES: readonly string[] = ['v1.37.2', 'v1.36.5', 'v1.35.8'];

/** How the bundle is built: the Go toolchain (from the module proxy) and the repository name the
 * bundle's images are imported under. (Its architecture is `bundle build --arch`'s.) */
export const BUNDLE_BUILD = { goToolchain: 'go1.26.8', imageRepository: 'kcluster.local' } as const;

import { ArtifactError } from './artifact.js';

/** A Kubernetes version whose minor kcluster has no companion versions for. */
export class UnknownReleaseError extends ArtifactError {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownReleaseError';
  }
}

export interface ComponentVersions {
  readonly etcd: string;
  readonly containerd: string;
  readonly runc: string;
  readonly crictl: string;
  readonly cniPlugins: string;
  readonly coredns: string;
  readonly flannel: string;
  readonly criDockerd: string;
  /** metrics-server (the resource metrics API; cluster.metricsServer). */
  readonly metricsServer: string;
  /** rancher's local-path-provisioner (the default StorageClass; cluster.localPathStorage). */
  readonly localPathProvisioner: string;
  /** kube-network-policies (the NetworkPolicy agent; cluster.networkPolicy). */
  readonly kubeNetworkPolicies: string;
  /** Helm, run on the controller for cluster.charts (never installed on hosts). */
  readonly helm: string;
  /** Tag of the pause (sandbox) image; no leading "v", like upstream's. */
  readonly pause: string;
  /** kcluster's node-local API server proxy (src/kubernetes/apiproxy), for HA without a load balancer. */
  readonly apiproxy: string;
  /** kcluster's artifact relay between nodes (src/kubernetes/relay), for cluster.artifacts.fanOut. */
  readonly relay: string;
  /** kcluster's uploader of scheduled etcd snapshots into the state store (src/kubernetes/snapshot-upload), for cluster.state.scheduledSnapshots. */
  readonly snapshotUpload: string;
  /** keepalived, built from Debian's source package (bundle/recipes/keepalived.sh), for cluster.apiEndpoint.virtualIp. */
  readonly keepalived: string;
}

/** The runtime and node tools: one set for every minor (upstream's CI runs each of these minors
 * with containerd 2.x, runc 1.x and CNI plugins 1.9). */
const RUNTIME = {
  containerd: 'v2.2.9',
  runc: 'v1.4.3',
  cniPlugins: 'v1.9.1',
  flannel: 'v0.28.10',
  criDockerd: 'v0.4.6',
  // 0.9.x supports Kubernetes 1.34 and newer (its README's compatibility matrix).
  metricsServer: 'v0.9.0',
  // Needs only the core, RBAC and storage v1 APIs; v0.0.30 is the newest the module proxy serves.
  localPathProvisioner: 'v0.0.30',
  // The newest the module proxy serves (v0.7.0, v0.8.0); it reads only stable APIs (v1 Pods,
  // Namespaces, NetworkPolicies), so one version serves every minor.
  kubeNetworkPolicies: 'v0.8.0',
  // Helm 4 (Helm 3's security fixes end in November 2026); the newest the module proxy serves.
  // It talks to the API server through client-go, so one version serves every minor.
  helm: 'v4.3.1',
  apiproxy: '2',
  relay: '1',
  snapshotUpload: '1',
  // Debian 12's own (its source package 2.2.7-1): VRRP is all kcluster uses of it.
  keepalived: '2.2.7',
} as const;

/**
 * Kubernetes minor ("1.37") -> companion versions. etcd, CoreDNS, pause and crictl follow what
 * each minor's kubeadm and build/dependencies.yaml name (etcd: the newest patch of that minor
 * the module proxy serves).
 */
export const COMPONENT_VERSIONS: Readonly<Record<string, ComponentVersions>> = {
  '1.37': { ...RUNTIME, etcd: 'v3.7.3', coredns: 'v1.14.6', pause: '3.10.2', crictl: 'v1.36.0' },
  '1.36': { ...RUNTIME, etcd: 'v3.6.16', coredns: 'v1.14.2', pause: '3.10.2', crictl: 'v1.36.0' },
  '1.35': { ...RUNTIME, etcd: 'v3.6.16', coredns: 'v1.13.1', pause: '3.10.1', crictl: 'v1.36.0' },
};

export function minorOf(kubernetesVersion: string): string {
  const match = /^v(\d+)\.(\d+)\.\d+$/.exec(kubernetesVersion);
  if (!match) throw new UnknownReleaseError(`"${kubernetesVersion}" is not a Kubernetes version such as v1.35.8`);
  return `${match[1]}.${match[2]}`;
}

/** The companion versions for a Kubernetes version, or an error that lists what is known. */
export function componentVersionsFor(kubernetesVersion: string): ComponentVersions {
  const minor = minorOf(kubernetesVersion);
  const versions = COMPONENT_VERSIONS[minor];
  if (!versions) {
    const known = Object.keys(COMPONENT_VERSIONS).sort().join(', ');
    throw new UnknownReleaseError(
      `kcluster knows the component versions for Kubernetes ${known}, not ${minor}: set cluster.kubernetesVersion to one of those minors`,
    );
  }
  return versions;
}

/** Where a project publishes an image: registry host, repository path, and the tag for a version. */
export interface UpstreamImage {
  readonly registry: string;
  readonly repository: string;
  readonly tag: (version: string) => string;
}

const asIs = (version: string): string => version;

/**
 * Each image kcluster runs, as its project publishes it (the same names and tags kubeadm pulls
 * for the Kubernetes images; flannel from its own project). `source: release` pulls exactly these
 * (the versions from COMPONENT_VERSIONS above); `cluster.artifacts.imageRepository` replaces the
 * registry host and keeps the repository path and tag, so a mirror keeps upstream paths. flannel's
 * CNI plugin image (ghcr.io/flannel-io/flannel-cni-plugin) is not used: the pod-network role writes
 * a bridge/host-local CNI configuration with the CNI plugins kcluster installs.
 */
export const UPSTREAM_IMAGES: Readonly<Record<string, UpstreamImage>> = {
  'kube-apiserver': { registry: 'registry.k8s.io', repository: 'kube-apiserver', tag: asIs },
  'kube-controller-manager': { registry: 'registry.k8s.io', repository: 'kube-controller-manager', tag: asIs },
  'kube-scheduler': { registry: 'registry.k8s.io', repository: 'kube-scheduler', tag: asIs },
  'kube-proxy': { registry: 'registry.k8s.io', repository: 'kube-proxy', tag: asIs },
  pause: { registry: 'registry.k8s.io', repository: 'pause', tag: asIs },
  coredns: { registry: 'registry.k8s.io', repository: 'coredns/coredns', tag: asIs },
  // registry.k8s.io tags etcd without the "v" and with a "-0" build suffix (3.6.16-0).
  etcd: { registry: 'registry.k8s.io', repository: 'etcd', tag: (v) => `${v.replace(/^v/, '')}-0` },
  flannel: { registry: 'ghcr.io', repository: 'flannel-io/flannel', tag: asIs },
  'metrics-server': { registry: 'registry.k8s.io', repository: 'metrics-server/metrics-server', tag: asIs },
  // Docker Hub, as rancher publishes it (its deploy/local-path-storage.yaml names rancher/local-path-provisioner).
  'local-path-provisioner': { registry: 'docker.io', repository: 'rancher/local-path-provisioner', tag: asIs },
  'kube-network-policies': { registry: 'registry.k8s.io', repository: 'networking/kube-network-policies', tag: asIs },
};

/**
 * The reference `source: release` pulls an image by: upstream's, or with `imageRepository` its
 * registry host replaced (paths and tags kept, as kubeadm's imageRepository does).
 */
export function upstreamImageReference(name: string, version: string, imageRepository?: string): string {
  const image = UPSTREAM_IMAGES[name];
  if (!image) throw new Error(`internal: no upstream reference for image ${name}`);
  return `${imageRepository ?? image.registry}/${image.repository}:${image.tag(version)}`;
}
