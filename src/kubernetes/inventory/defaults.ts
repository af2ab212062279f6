// Defaults of every inventory setting: `kcluster config` shows them filled in.

/** The Kubernetes version kcluster installs when the inventory names none. */
export const DEFAULT_KUBERNETES_VERSION = 'v1.37.2';

export const CLUSTER_DEFAULTS = {
  name: 'kcluster',
  podCIDR: '10.244.0.0/16',
  serviceCIDR: '10.96.0.0/12',
  clusterDomain: 'cluster.local',
  apiPort: 6443,
  /** keepalived's own example id; what matters is that no other VRRP router on the segment uses it. */
  virtualIpRouterId: 51,
  containerRuntime: 'containerd',
  cni: 'flannel',
  kubeProxyMode: 'iptables',
  /** The resource metrics API (issue 33: on by default, as RKE2 and k0s ship it). */
  metricsServerEnabled: true,
  /** The default StorageClass (issue 33: optional, so off: its volumes live on one node's disk). */
  localPathStorageEnabled: false,
  /** rancher's own default folder for the volumes. */
  localPathStoragePath: '/opt/local-path-provisioner',
  /** NetworkPolicy enforced (issue 33: on by default, as RKE2 and k0s ship a policy-enforcing network). */
  networkPolicyEnabled: true,
  artifactSource: 'release',
  /** Binary and image transfers to hosts at once, across the whole run. */
  uploadConcurrency: 8,
  /** Hosts pass verified artifacts on to each other (issue 32): the controller sends each one at most twice. */
  artifactFanOut: true,
  /** Audit log rotation: what the CIS benchmark asks for at least (1.2.17-1.2.19). */
  auditMaxAgeDays: 30,
  auditMaxBackups: 10,
  auditMaxSizeMB: 100,
  /** Pod Security admission for namespaces without their own labels (issue 18: baseline enforced, restricted warned). */
  podSecurityEnforce: 'baseline',
  podSecurityWarn: 'restricted',
  podSecurityAudit: 'restricted',
  /** Scheduled etcd snapshots (like RKE2's): on, every 12 hours, the newest 5 kept on each control plane. */
  etcdSnapshotsEnabled: true,
  etcdSnapshotSchedule: '*-*-* 00/12:00:00',
  etcdSnapshotsKeep: 5,
} as const;

export const SSH_DEFAULTS = {
  user: 'root',
  port: 22,
  connectTimeoutMs: 10_000,
  /** With keepaliveCountMax: a dead link is noticed after 5 s x 3 = 15 s without an answer. */
  keepaliveIntervalMs: 5_000,
  keepaliveCountMax: 3,
  /** A remote command with no output (and no input sent) for this long is stopped: a hang, on a live link. */
  commandIdleTimeoutMs: 30 * 60_000,
  connectRetries: 3,
} as const;

/** cluster.state's defaults (issue 41): the AWS SDKs' credential variables, path-style URLs, a lease of one minute. */
export const STATE_STORE_DEFAULTS = {
  prefix: '',
  region: 'us-east-1',
  pathStyle: true,
  accessKeyIdEnv: 'AWS_ACCESS_KEY_ID',
  secretAccessKeyEnv: 'AWS_SECRET_ACCESS_KEY',
  sessionTokenEnv: 'AWS_SESSION_TOKEN',
  leaseSeconds: 60,
  /** etcd snapshots kept in the store: a few weeks of daily saves, or a day of hourly ones. */
  snapshotsKeep: 20,
  /** Scheduled snapshots kept in the store per control plane: five days at the default schedule (every 12 hours). */
  scheduledSnapshotsKeep: 10,
} as const;
