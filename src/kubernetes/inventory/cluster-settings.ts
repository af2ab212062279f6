// The inventory's `cluster` section once every default is filled in: what a Kubernetes
// cluster kcluster installs is made of. Declared into the orchestrator's ClusterSection, so
// every `inventory.cluster` is this shape while the engine knows nothing of it.

import type { Arch } from './host-arch.js';

export {};

declare module '../../orchestrator/inventory/model.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: the section is ClusterSettings
  interface ClusterSection extends ClusterSettings {}
  interface HostSection {
    /** The node's IPv6 address in a dual-stack cluster (its IPv4 one is ssh.address). */
    readonly ipv6Address?: string;
    /**
     * The architecture of the artifacts it gets: the inventory's `arch`, amd64 when unnamed (the
     * loader always sets it; optional for hosts made by other code: read it with hostArch).
     */
    readonly arch?: Arch;
  }
}

export interface ApiEndpoint {
  /** Load balancer address; when absent, every node runs a local proxy to the control planes. */
  readonly host?: string;
  readonly port: number;
  /** kcluster holds host on one control plane at a time (keepalived, VRRP): roles/api-vip. */
  readonly virtualIp?: VirtualIpSettings;
}

export interface VirtualIpSettings {
  /** VRRP virtual router id, unique on the control planes' segment. */
  readonly routerId: number;
}

export interface ArtifactSource {
  readonly kind: 'release' | 'bundle';
  /** Directory or tarball, for kind "bundle". */
  readonly bundle?: string;
  /** Release downloads: URL prefix -> replacement prefix (a mirror or a local file server). */
  readonly mirrors: Readonly<Record<string, string>>;
  /** Release source: the registry and path runtimes pull images from (e.g. a local mirror). */
  readonly imageRepository?: string;
  /** Controller cache of downloaded and verified artifacts (shared by every cluster). */
  readonly cacheDir: string;
  /** Transfers to hosts at once, across the whole run. */
  readonly uploadConcurrency: number;
  /**
   * Hosts that hold a verified artifact pass it on to others over the cluster network
   * (kcluster-relay), with source: bundle: the controller sends each artifact at most
   * FAN_OUT_CONTROLLER_COPIES times (plus once per failed relay).
   */
  readonly fanOut: boolean;
}

export interface ClusterSettings {
  readonly name: string;
  readonly kubernetesVersion: string;
  /** The IPv4 range of the Pods (the first of cluster.podCIDR). */
  readonly podCIDR: string;
  /** The IPv4 range of the Services (the first of cluster.serviceCIDR). */
  readonly serviceCIDR: string;
  /** The IPv6 ranges of a dual-stack cluster (the second of each); absent: IPv4 only. */
  readonly ipv6?: { readonly podCIDR: string; readonly serviceCIDR: string };
  readonly clusterDomain: string;
  readonly apiEndpoint: ApiEndpoint;
  readonly containerRuntime: 'containerd' | 'docker';
  readonly cni: 'flannel' | 'none';
  readonly audit: AuditSettings;
  readonly podSecurity: PodSecuritySettings;
  /** Kubernetes feature gates, given to every component that takes them (not etcd). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Each control-plane component's own extra flags (name without "--" -> value). */
  readonly extraArgs: Readonly<Record<ControlPlaneComponentKey, Readonly<Record<string, string>>>>;
  /** Scheduled etcd snapshots on every control plane (roles/etcd-snapshot-schedule). */
  readonly etcdSnapshots: EtcdSnapshotSettings;
  /** More DNS names and addresses in the API server's certificate. */
  readonly apiServerCertSANs: readonly string[];
  /** Files on the controller (absolute) each component's flags reference; etcd has none. */
  readonly extraFiles: Readonly<Record<Exclude<ControlPlaneComponentKey, 'etcd'>, readonly string[]>>;
  /** OpenID Connect login for the API server. */
  readonly apiServerOidc?: OidcSettings;
  readonly dns: DnsSettings;
  readonly kubeProxy: KubeProxySettings;
  /** metrics-server, the resource metrics API (kubectl top, HorizontalPodAutoscalers). */
  readonly metricsServer: MetricsServerSettings;
  /** The default StorageClass `local-path` (rancher's local-path-provisioner). */
  readonly localPathStorage: LocalPathStorageSettings;
  /** The NetworkPolicy agent (kube-network-policies), beside the pod network. */
  readonly networkPolicy: NetworkPolicySettings;
  /** Absolute paths on the controller of the operator's manifest files and folders. */
  readonly manifests: readonly string[];
  /** Helm charts from the controller, installed by kcluster (src/kubernetes/charts). */
  readonly charts: readonly ChartSettings[];
  /** The HTTP(S) proxy the runtime and the kubelet use; absent: none. */
  readonly proxy?: ProxySettings;
  /** A state store shared by a team (issue 41); absent: the state folder on this controller is the only copy. */
  readonly state?: StateStoreSettings;
  /** Registry name (as in image names) -> how the nodes reach it. */
  readonly registries: Readonly<Record<string, RegistrySettings>>;
  readonly artifacts: ArtifactSource;
}

/** cluster.state: the bucket, the names of the environment variables with its credentials, and the sealing key's source. */
export interface StateStoreSettings {
  readonly s3: {
    readonly endpoint: string;
    readonly bucket: string;
    /** "" or folder names each ending in "/". */
    readonly prefix: string;
    readonly region: string;
    readonly pathStyle: boolean;
    readonly accessKeyIdEnv: string;
    readonly secretAccessKeyEnv: string;
    readonly sessionTokenEnv: string;
  };
  /** An absolute key file on the controller, the environment variable that holds the key, or one that holds a passphrase. */
  readonly key: { readonly file: string } | { readonly env: string } | { readonly passphraseEnv: string };
  readonly leaseSeconds: number;
  /** How many of the etcd snapshots copied into the store it keeps. */
  readonly snapshots: { readonly keep: number; readonly maxAgeDays?: number };
  /** The control planes copy their scheduled etcd snapshots into the store (roles/etcd-snapshot-schedule). */
  readonly scheduledSnapshots?: ScheduledSnapshotUpload;
}

/** cluster.state.scheduledSnapshots: how the control planes reach the store, with which credential, and how many copies it keeps of each. */
export interface ScheduledSnapshotUpload {
  readonly endpoint: string;
  readonly accessKeyIdEnv: string;
  readonly secretAccessKeyEnv: string;
  /** Per control plane. */
  readonly keep: number;
  readonly maxAgeDays?: number;
}

/** One chart of cluster.charts: where it is on the controller, its release and its values. */
export interface ChartSettings {
  readonly release: string;
  readonly namespace: string;
  /** Absolute path on the controller of the chart archive or folder. */
  readonly chart: string;
  /** The version its Chart.yaml must say. */
  readonly version: string;
  /** Inline values (over valuesFile's). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Absolute path on the controller of a values file. */
  readonly valuesFile?: string;
}

export interface EtcdSnapshotSettings {
  readonly enabled: boolean;
  /** A systemd OnCalendar expression. */
  readonly schedule: string;
  /** Scheduled snapshots kept on each control plane. */
  readonly keep: number;
}

export interface OidcSettings {
  readonly issuerUrl: string;
  readonly clientId: string;
  readonly usernameClaim?: string;
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  /** Absolute path on the controller of the issuer's CA. */
  readonly caFile?: string;
}

export interface ProxySettings {
  readonly http?: string;
  readonly https?: string;
  /** The operator's own, after what kcluster computes. */
  readonly noProxy: readonly string[];
}

export interface RegistrySettings {
  /** Where the registry itself answers (https://NAME unless written). */
  readonly server: string;
  /** Tried in order before the server. */
  readonly mirrors: readonly string[];
  /** Names of the controller's environment variables with the credentials (never the values). */
  readonly usernameEnv?: string;
  readonly passwordEnv?: string;
}

export interface KubeProxySettings {
  readonly mode: 'iptables' | 'nftables';
  /** The operator's KubeProxyConfiguration fields, after kcluster's own. */
  readonly config: Readonly<Record<string, unknown>>;
}

export interface LocalPathStorageSettings {
  /** true: installed, its StorageClass the default; false: removed when kcluster had applied it (the folders stay). */
  readonly enabled: boolean;
  /** The folder on each node under which each volume gets its folder. */
  readonly path: string;
}

export interface NetworkPolicySettings {
  /** false: NetworkPolicies are not enforced, and the agent is removed when kcluster had applied it. */
  readonly enabled: boolean;
}

export interface MetricsServerSettings {
  /** false: not installed, and removed from the cluster when kcluster had applied it. */
  readonly enabled: boolean;
}

/** CoreDNS: where names outside the cluster domain go. */
export interface DnsSettings {
  /** Servers for every other name; empty: each node's /etc/resolv.conf. */
  readonly upstreams: readonly string[];
  /** Domain -> its own servers (a server block each). */
  readonly stubDomains: Readonly<Record<string, readonly string[]>>;
}

/** The inventory keys of the control-plane components (cluster.apiServer, ...). */
export type ControlPlaneComponentKey = 'apiServer' | 'controllerManager' | 'scheduler' | 'etcd';
export const CONTROL_PLANE_COMPONENT_KEYS: readonly ControlPlaneComponentKey[] = ['apiServer', 'controllerManager', 'scheduler', 'etcd'];

export type PodSecurityLevel = 'privileged' | 'baseline' | 'restricted';

/** Pod Security admission's cluster default: what applies to a namespace without its own labels. */
export interface PodSecuritySettings {
  readonly enforce: PodSecurityLevel;
  readonly warn: PodSecurityLevel;
  readonly audit: PodSecurityLevel;
  /** Namespaces exempt besides kube-system (which the built-in addons need). */
  readonly exemptNamespaces: readonly string[];
}

/** The API server's audit log: policy (kcluster's unless a file replaces it) and rotation. */
export interface AuditSettings {
  /** Absolute path on the controller of the operator's own audit policy. */
  readonly policyFile?: string;
  readonly maxAgeDays: number;
  readonly maxBackups: number;
  readonly maxSizeMB: number;
}
