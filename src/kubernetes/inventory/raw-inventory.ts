// The inventory document as written, once it passed the JSON Schema (shapes mirror
// inventory.schema.json; every field optional unless the schema requires it).
import type { HostRole, Vars } from '../../orchestrator/inventory/model.js';
import type { Arch } from './host-arch.js';
import type { OidcSettings, PodSecurityLevel } from './cluster-settings.js';

export interface RawSshSettings {
  readonly user?: string;
  readonly port?: number;
  readonly keyFile?: string;
  readonly agent?: boolean;
  readonly keyPassphraseEnv?: string;
  readonly passwordEnv?: string;
}

export type RawBecome = boolean | { readonly method?: 'sudo'; readonly passwordEnv?: string };

export interface RawSshDefaults extends RawSshSettings {
  /** For every host that does not set its own `become`. */
  readonly become?: RawBecome;
  readonly knownHostsFile?: string;
  readonly connectTimeout?: number | string;
  readonly keepaliveInterval?: number | string;
  readonly commandIdleTimeout?: number | string;
  readonly keepaliveCountMax?: number;
  readonly connectRetries?: number;
}

export type RawBastion =
  | string
  | { readonly name?: string; readonly address: string; readonly port?: number; readonly user?: string; readonly keyFile?: string; readonly agent?: boolean };

export interface RawHost extends RawSshSettings {
  readonly name: string;
  readonly address: string;
  readonly ipv6Address?: string;
  readonly arch?: Arch;
  readonly become?: RawBecome;
  readonly bastion?: RawBastion;
  readonly roles?: readonly HostRole[];
  readonly vars?: Vars;
}

export interface RawComponentSettings {
  readonly extraArgs?: Readonly<Record<string, string | number | boolean>>;
  readonly extraFiles?: readonly string[];
}

export interface RawInventory {
  readonly cluster?: {
    readonly name?: string;
    readonly kubernetesVersion?: string;
    readonly podCIDR?: string;
    readonly serviceCIDR?: string;
    readonly clusterDomain?: string;
    readonly apiEndpoint?: { readonly host?: string; readonly port?: number; readonly virtualIp?: { readonly routerId?: number } };
    readonly containerRuntime?: 'containerd' | 'docker';
    readonly cni?: 'flannel' | 'none';
    readonly audit?: { readonly policyFile?: string; readonly maxAgeDays?: number; readonly maxBackups?: number; readonly maxSizeMB?: number };
    readonly podSecurity?: {
      readonly enforce?: PodSecurityLevel;
      readonly warn?: PodSecurityLevel;
      readonly audit?: PodSecurityLevel;
      readonly exemptNamespaces?: readonly string[];
    };
    readonly featureGates?: Readonly<Record<string, boolean>>;
    readonly apiServer?: RawComponentSettings & {
      readonly certSANs?: readonly string[];
      /** As resolved, but caFile as written (relative to the inventory's folder). */
      readonly oidc?: OidcSettings;
    };
    readonly controllerManager?: RawComponentSettings;
    readonly scheduler?: RawComponentSettings;
    readonly etcd?: RawComponentSettings & { readonly snapshots?: { readonly enabled?: boolean; readonly schedule?: string; readonly keep?: number } };
    readonly manifests?: readonly string[];
    readonly charts?: readonly {
      readonly release: string;
      readonly namespace: string;
      readonly chart: string;
      readonly version: string;
      readonly values?: Readonly<Record<string, unknown>>;
      readonly valuesFile?: string;
    }[];
    readonly proxy?: { readonly http?: string; readonly https?: string; readonly noProxy?: readonly string[] };
    readonly registries?: Readonly<
      Record<string, { readonly server?: string; readonly mirrors?: readonly string[]; readonly usernameEnv?: string; readonly passwordEnv?: string }>
    >;
    readonly kubeProxy?: { readonly mode?: 'iptables' | 'nftables'; readonly config?: Readonly<Record<string, unknown>> };
    readonly metricsServer?: { readonly enabled?: boolean };
    readonly localPathStorage?: { readonly enabled?: boolean; readonly path?: string };
    readonly networkPolicy?: { readonly enabled?: boolean };
    readonly dns?: { readonly upstreams?: readonly string[]; readonly stubDomains?: Readonly<Record<string, readonly string[]>> };
    readonly artifacts?: {
      readonly source?: 'release' | 'bundle';
      readonly bundle?: string;
      readonly mirrors?: Readonly<Record<string, string>>;
      readonly imageRepository?: string;
      readonly cacheDir?: string;
      readonly uploadConcurrency?: number;
      readonly fanOut?: boolean;
    };
    readonly state?: {
      readonly s3: {
        readonly endpoint: string;
        readonly bucket: string;
        readonly prefix?: string;
        readonly region?: string;
        readonly pathStyle?: boolean;
        readonly accessKeyIdEnv?: string;
        readonly secretAccessKeyEnv?: string;
        readonly sessionTokenEnv?: string;
      };
      readonly key: { readonly file?: string; readonly env?: string; readonly passphraseEnv?: string };
      readonly leaseSeconds?: number;
      readonly snapshots?: { readonly keep?: number; readonly maxAgeDays?: number };
      readonly scheduledSnapshots?: {
        readonly endpoint?: string;
        readonly accessKeyIdEnv: string;
        readonly secretAccessKeyEnv: string;
        readonly keep?: number;
        readonly maxAgeDays?: number;
      };
    };
  };
  readonly ssh?: RawSshDefaults;
  readonly stateDir?: string;
  readonly vars?: Vars;
  readonly groups?: Readonly<Record<string, { readonly hosts?: readonly string[]; readonly vars?: Vars }>>;
  readonly hosts: readonly RawHost[];
}
