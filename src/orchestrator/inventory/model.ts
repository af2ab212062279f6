// The effective inventory as the orchestrator sees it: hosts, how to reach them, their groups
// and vars, once every default is filled in. The `cluster` section is the product's
// (ClusterSection); loading and checking the file is too (src/kubernetes/inventory).

export type HostRole = 'control-plane' | 'worker' | 'etcd';

export type Vars = Record<string, unknown>;

export interface BecomeSettings {
  /** Elevate to root for remote commands. Implied false when `user` is root. */
  readonly enabled: boolean;
  readonly method: 'sudo';
  /** Name of the environment variable holding the sudo password, if one is needed. */
  readonly passwordEnv?: string;
}

export interface SshEndpoint {
  readonly address: string;
  readonly port: number;
  readonly user: string;
  /** Private key file (absolute path, ~ expanded). */
  readonly keyFile?: string;
  /** Environment variable holding the key's passphrase. */
  readonly keyPassphraseEnv?: string;
  /** Use the ssh-agent at $SSH_AUTH_SOCK. */
  readonly agent: boolean;
  /** Environment variable holding a login password (discouraged; keys preferred). */
  readonly passwordEnv?: string;
}

export interface HostSettings extends HostSection {
  readonly name: string;
  readonly ssh: SshEndpoint;
  readonly become: BecomeSettings;
  /** Jump host: connections to this host are forwarded through the bastion's connection. */
  readonly bastion?: SshEndpoint & { readonly name: string };
  readonly roles: readonly HostRole[];
  /** Merged vars: role defaults < cluster vars < group vars < host vars. */
  readonly vars: Vars;
  /** Where this host is defined, for error messages: "inventory.yaml:14:5". */
  readonly source: string;
}

/**
 * What the product adds to a host (its node's IPv6 address, for one): empty for the engine,
 * filled by declaration merging as ClusterSection is (src/kubernetes/inventory/cluster-settings.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an extension point, filled by declaration merging
export interface HostSection {}

/**
 * The inventory's `cluster` section. The engine never reads it: its shape belongs to the product
 * built on the orchestrator, which declares it by merging into this interface
 * (src/kubernetes/inventory/cluster-settings.ts), so a Kubernetes release or setting never
 * touches the engine while roles still read `ctx.inventory.cluster` fully typed.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an extension point, filled by declaration merging
export interface ClusterSection {}

export interface SshDefaults {
  readonly connectTimeoutMs: number;
  readonly keepaliveIntervalMs: number;
  /** Unanswered keepalives after which the connection is declared lost (OpenSSH's ServerAliveCountMax). */
  readonly keepaliveCountMax: number;
  /** A command that neither prints nor reads for this long is stopped and its task fails. */
  readonly commandIdleTimeoutMs: number;
  readonly connectRetries: number;
  /** Extra known_hosts file named in the inventory (checked besides ~/.ssh/known_hosts). */
  readonly knownHostsFile?: string;
}

export interface Inventory {
  /** Absolute path of the inventory file. */
  readonly file: string;
  readonly cluster: ClusterSection;
  readonly ssh: SshDefaults;
  /** Controller state folder: CA keys, pinned host keys, logs (default ~/.kcluster/<cluster>). */
  readonly stateDir: string;
  readonly hosts: readonly HostSettings[];
  /** Group name -> host names; built-in groups: all, control-plane, worker, etcd. */
  readonly groups: Readonly<Record<string, readonly string[]>>;
}
