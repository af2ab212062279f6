// Defaults of every inventory setting: `kcluster config` shows them filled in.

/** The Kubernetes version kcluster installs when the inventory names none. */
export const DEFAULT_KUBERNETES_VERSION = 'v1.35.8';

export const CLUSTER_DEFAULTS = {
  name: 'kcluster',
  podCIDR: '10.244.0.0/16',
  serviceCIDR: '10.96.0.0/12',
  clusterDomain: 'cluster.local',
  apiPort: 6443,
  containerRuntime: 'containerd',
  cni: 'flannel',
  artifactSource: 'release',
  /** Binary and image transfers to hosts at once, across the whole run. */
  uploadConcurrency: 8,
} as const;

export const SSH_DEFAULTS = {
  user: 'root',
  port: 22,
  connectTimeoutMs: 10_000,
  keepaliveIntervalMs: 15_000,
  connectRetries: 3,
} as const;
