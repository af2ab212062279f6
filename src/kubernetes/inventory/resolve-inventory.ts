// From a schema-valid document to the effective Inventory: defaults filled in, paths
// resolved, ssh settings inherited, vars merged by precedence.
//
// Vars precedence (the last one wins): role defaults (merged later by the engine)
//   < cluster `vars` < group vars (`all`, then the built-in role groups control-plane, etcd,
//   worker, then custom groups in file order) < host `vars`. Plain objects merge deeply;
//   arrays and scalars are replaced. See README.md beside this file.
import { durationMs } from '../../orchestrator/util/duration.js';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { CLUSTER_DEFAULTS, DEFAULT_KUBERNETES_VERSION, SSH_DEFAULTS, STATE_STORE_DEFAULTS } from './defaults.js';
import { type HostRole, type HostSettings, type Inventory, type SshEndpoint, type Vars } from '../../orchestrator/inventory/model.js';
import { CONTROL_PLANE_COMPONENT_KEYS, type ClusterSettings } from './cluster-settings.js';
import type { RawBastion, RawHost, RawInventory, RawSshSettings } from './raw-inventory.js';
import { deepMerge } from '../../orchestrator/inventory/deep-merge.js';
import { clusterCidrsOf } from './cluster-cidrs.js';
import { canonicalIp } from './ipv6.js';
import { DEFAULT_ARCH } from './host-arch.js';

export const BUILTIN_GROUPS = ['all', 'control-plane', 'etcd', 'worker'] as const;

export interface ResolveContext {
  readonly file: string;
  readonly env: NodeJS.ProcessEnv;
  readonly homeDir: string;
}

/** Where a registry answers when the inventory does not say: Docker Hub's API host for docker.io. */
export function defaultRegistryServer(name: string): string {
  return name === 'docker.io' ? 'https://registry-1.docker.io' : `https://${name}`;
}

export function expandPath(path: string, ctx: ResolveContext): string {
  const expanded = path === '~' ? ctx.homeDir : path.startsWith('~/') ? join(ctx.homeDir, path.slice(2)) : path;
  return isAbsolute(expanded) ? expanded : resolve(dirname(resolve(ctx.file)), expanded);
}

/** An inventory duration (a number of ms, or "30s"-style text; the schema admits ms, s and m), or `fallback` when absent or not one. */
export function parseDuration(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  return durationMs(value) ?? fallback;
}

/** The key to use when the inventory names none: agent, else the first default key file. */
function defaultAuth(ctx: ResolveContext): { keyFile?: string; agent: boolean } {
  if (ctx.env['SSH_AUTH_SOCK']) return { agent: true };
  for (const name of ['id_ed25519', 'id_rsa']) {
    const file = join(ctx.homeDir, '.ssh', name);
    if (existsSync(file)) return { keyFile: file, agent: false };
  }
  return { agent: false };
}

function endpoint(address: string, own: RawSshSettings, defaults: RawSshSettings, ctx: ResolveContext): SshEndpoint {
  const keyFile = own.keyFile ?? defaults.keyFile;
  const agent = own.agent ?? defaults.agent;
  const auth =
    keyFile === undefined && agent === undefined
      ? defaultAuth(ctx)
      : { ...(keyFile !== undefined ? { keyFile: expandPath(keyFile, ctx) } : {}), agent: agent ?? false };
  const keyPassphraseEnv = own.keyPassphraseEnv ?? defaults.keyPassphraseEnv;
  const passwordEnv = own.passwordEnv ?? defaults.passwordEnv;
  return {
    address,
    port: own.port ?? defaults.port ?? SSH_DEFAULTS.port,
    user: own.user ?? defaults.user ?? SSH_DEFAULTS.user,
    ...auth,
    ...(keyPassphraseEnv !== undefined ? { keyPassphraseEnv } : {}),
    ...(passwordEnv !== undefined ? { passwordEnv } : {}),
  };
}

function hostRoles(raw: RawHost, anyEtcd: boolean): HostRole[] {
  const roles: HostRole[] = [...(raw.roles ?? ['worker'])];
  if (!anyEtcd && roles.includes('control-plane') && !roles.includes('etcd')) roles.push('etcd');
  return roles;
}

function bastionFor(raw: RawBastion | undefined, hosts: ReadonlyMap<string, RawHost>, defaults: RawSshSettings, ctx: ResolveContext) {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') {
    const target = hosts.get(raw);
    if (!target) return undefined; // reported by the semantic checks
    return { name: target.name, ...endpoint(target.address, target, defaults, ctx) };
  }
  return { name: raw.name ?? raw.address, ...endpoint(raw.address, raw, defaults, ctx) };
}

export function resolveInventory(raw: RawInventory, ctx: ResolveContext): Inventory {
  const cluster = raw.cluster ?? {};
  const name = cluster.name ?? CLUSTER_DEFAULTS.name;
  const sshDefaults = raw.ssh ?? {};
  const anyEtcd = raw.hosts.some((h) => h.roles?.includes('etcd'));
  const groupsRaw = raw.groups ?? {};

  const hostsWithRoles = raw.hosts.map((h) => ({ raw: h, roles: hostRoles(h, anyEtcd) }));
  const groups: Record<string, string[]> = {
    all: raw.hosts.map((h) => h.name),
    'control-plane': hostsWithRoles.filter((h) => h.roles.includes('control-plane')).map((h) => h.raw.name),
    etcd: hostsWithRoles.filter((h) => h.roles.includes('etcd')).map((h) => h.raw.name),
    worker: hostsWithRoles.filter((h) => h.roles.includes('worker')).map((h) => h.raw.name),
  };
  for (const [group, def] of Object.entries(groupsRaw)) {
    if (!(BUILTIN_GROUPS as readonly string[]).includes(group)) groups[group] = [...(def.hosts ?? [])];
  }
  // `all` holds every host, so its vars are the weakest of the groups'.
  const groupOrder = ['all', 'control-plane', 'etcd', 'worker', ...Object.keys(groupsRaw).filter((g) => !(BUILTIN_GROUPS as readonly string[]).includes(g))];

  // Membership as sets and hosts by name: lists searched per host made validation quadratic.
  const members = new Map(Object.entries(groups).map(([group, names]) => [group, new Set(names)]));
  const byName = new Map<string, RawHost>();
  for (const h of raw.hosts) if (!byName.has(h.name)) byName.set(h.name, h);
  const hosts: HostSettings[] = hostsWithRoles.map(({ raw: h, roles }, index) => {
    let vars: Vars = deepMerge({}, raw.vars ?? {});
    for (const group of groupOrder) {
      if (members.get(group)?.has(h.name)) vars = deepMerge(vars, groupsRaw[group]?.vars ?? {});
    }
    vars = deepMerge(vars, h.vars ?? {});
    const ssh = endpoint(h.address, h, sshDefaults, ctx);
    const becomeRaw = h.become ?? sshDefaults.become;
    const becomeEnabled = typeof becomeRaw === 'boolean' ? becomeRaw : becomeRaw !== undefined || ssh.user !== 'root';
    const passwordEnv = typeof becomeRaw === 'object' ? becomeRaw.passwordEnv : undefined;
    const bastion = bastionFor(h.bastion, byName, sshDefaults, ctx);
    return {
      name: h.name,
      ssh,
      become: { enabled: becomeEnabled && ssh.user !== 'root', method: 'sudo', ...(passwordEnv ? { passwordEnv } : {}) },
      ...(bastion ? { bastion } : {}),
      ...(h.ipv6Address !== undefined ? { ipv6Address: canonicalIp(h.ipv6Address) } : {}),
      arch: h.arch ?? DEFAULT_ARCH,
      roles,
      vars,
      source: `hosts[${index}]`,
    };
  });

  const artifacts = cluster.artifacts ?? {};
  const podCIDRs = clusterCidrsOf(cluster.podCIDR ?? CLUSTER_DEFAULTS.podCIDR, 'podCIDR');
  const serviceCIDRs = clusterCidrsOf(cluster.serviceCIDR ?? CLUSTER_DEFAULTS.serviceCIDR, 'serviceCIDR');
  return {
    file: resolve(ctx.file),
    cluster: {
      name,
      kubernetesVersion: cluster.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
      podCIDR: podCIDRs.ipv4.text,
      serviceCIDR: serviceCIDRs.ipv4.text,
      ...(podCIDRs.ipv6 !== undefined && serviceCIDRs.ipv6 !== undefined ? { ipv6: { podCIDR: podCIDRs.ipv6.text, serviceCIDR: serviceCIDRs.ipv6.text } } : {}),
      clusterDomain: cluster.clusterDomain ?? CLUSTER_DEFAULTS.clusterDomain,
      apiEndpoint: {
        ...(cluster.apiEndpoint?.host !== undefined ? { host: cluster.apiEndpoint.host } : {}),
        port: cluster.apiEndpoint?.port ?? CLUSTER_DEFAULTS.apiPort,
        ...(cluster.apiEndpoint?.virtualIp !== undefined
          ? { virtualIp: { routerId: cluster.apiEndpoint.virtualIp.routerId ?? CLUSTER_DEFAULTS.virtualIpRouterId } }
          : {}),
      },
      containerRuntime: cluster.containerRuntime ?? CLUSTER_DEFAULTS.containerRuntime,
      cni: cluster.cni ?? CLUSTER_DEFAULTS.cni,
      audit: {
        ...(cluster.audit?.policyFile !== undefined ? { policyFile: expandPath(cluster.audit.policyFile, ctx) } : {}),
        maxAgeDays: cluster.audit?.maxAgeDays ?? CLUSTER_DEFAULTS.auditMaxAgeDays,
        maxBackups: cluster.audit?.maxBackups ?? CLUSTER_DEFAULTS.auditMaxBackups,
        maxSizeMB: cluster.audit?.maxSizeMB ?? CLUSTER_DEFAULTS.auditMaxSizeMB,
      },
      podSecurity: {
        enforce: cluster.podSecurity?.enforce ?? CLUSTER_DEFAULTS.podSecurityEnforce,
        warn: cluster.podSecurity?.warn ?? CLUSTER_DEFAULTS.podSecurityWarn,
        audit: cluster.podSecurity?.audit ?? CLUSTER_DEFAULTS.podSecurityAudit,
        exemptNamespaces: [...(cluster.podSecurity?.exemptNamespaces ?? [])],
      },
      featureGates: { ...(cluster.featureGates ?? {}) },
      extraArgs: Object.fromEntries(
        CONTROL_PLANE_COMPONENT_KEYS.map((key) => [
          key,
          Object.fromEntries(Object.entries(cluster[key]?.extraArgs ?? {}).map(([flag, value]) => [flag, String(value)])),
        ]),
      ) as ClusterSettings['extraArgs'],
      etcdSnapshots: {
        enabled: cluster.etcd?.snapshots?.enabled ?? CLUSTER_DEFAULTS.etcdSnapshotsEnabled,
        schedule: cluster.etcd?.snapshots?.schedule ?? CLUSTER_DEFAULTS.etcdSnapshotSchedule,
        keep: cluster.etcd?.snapshots?.keep ?? CLUSTER_DEFAULTS.etcdSnapshotsKeep,
      },
      apiServerCertSANs: [...(cluster.apiServer?.certSANs ?? [])],
      extraFiles: {
        apiServer: (cluster.apiServer?.extraFiles ?? []).map((f) => expandPath(f, ctx)),
        controllerManager: (cluster.controllerManager?.extraFiles ?? []).map((f) => expandPath(f, ctx)),
        scheduler: (cluster.scheduler?.extraFiles ?? []).map((f) => expandPath(f, ctx)),
      },
      ...(cluster.apiServer?.oidc !== undefined
        ? {
            apiServerOidc: {
              ...cluster.apiServer.oidc,
              ...(cluster.apiServer.oidc.caFile !== undefined ? { caFile: expandPath(cluster.apiServer.oidc.caFile, ctx) } : {}),
            },
          }
        : {}),
      manifests: (cluster.manifests ?? []).map((path) => expandPath(path, ctx)),
      charts: (cluster.charts ?? []).map((c) => ({
        release: c.release,
        namespace: c.namespace,
        chart: expandPath(c.chart, ctx),
        version: c.version,
        values: { ...(c.values ?? {}) },
        ...(c.valuesFile !== undefined ? { valuesFile: expandPath(c.valuesFile, ctx) } : {}),
      })),
      ...(cluster.state !== undefined
        ? {
            state: {
              s3: {
                endpoint: cluster.state.s3.endpoint,
                bucket: cluster.state.s3.bucket,
                prefix: cluster.state.s3.prefix ?? STATE_STORE_DEFAULTS.prefix,
                region: cluster.state.s3.region ?? STATE_STORE_DEFAULTS.region,
                pathStyle: cluster.state.s3.pathStyle ?? STATE_STORE_DEFAULTS.pathStyle,
                accessKeyIdEnv: cluster.state.s3.accessKeyIdEnv ?? STATE_STORE_DEFAULTS.accessKeyIdEnv,
                secretAccessKeyEnv: cluster.state.s3.secretAccessKeyEnv ?? STATE_STORE_DEFAULTS.secretAccessKeyEnv,
                sessionTokenEnv: cluster.state.s3.sessionTokenEnv ?? STATE_STORE_DEFAULTS.sessionTokenEnv,
              },
              key:
                cluster.state.key.file !== undefined
                  ? { file: expandPath(cluster.state.key.file, ctx) }
                  : cluster.state.key.env !== undefined
                    ? { env: cluster.state.key.env }
                    : { passphraseEnv: cluster.state.key.passphraseEnv! },
              leaseSeconds: cluster.state.leaseSeconds ?? STATE_STORE_DEFAULTS.leaseSeconds,
              snapshots: {
                keep: cluster.state.snapshots?.keep ?? STATE_STORE_DEFAULTS.snapshotsKeep,
                ...(cluster.state.snapshots?.maxAgeDays !== undefined ? { maxAgeDays: cluster.state.snapshots.maxAgeDays } : {}),
              },
              ...(cluster.state.scheduledSnapshots !== undefined
                ? {
                    scheduledSnapshots: {
                      endpoint: cluster.state.scheduledSnapshots.endpoint ?? cluster.state.s3.endpoint,
                      accessKeyIdEnv: cluster.state.scheduledSnapshots.accessKeyIdEnv,
                      secretAccessKeyEnv: cluster.state.scheduledSnapshots.secretAccessKeyEnv,
                      keep: cluster.state.scheduledSnapshots.keep ?? STATE_STORE_DEFAULTS.scheduledSnapshotsKeep,
                      ...(cluster.state.scheduledSnapshots.maxAgeDays !== undefined ? { maxAgeDays: cluster.state.scheduledSnapshots.maxAgeDays } : {}),
                    },
                  }
                : {}),
            },
          }
        : {}),
      ...(cluster.proxy !== undefined && (cluster.proxy.http !== undefined || cluster.proxy.https !== undefined)
        ? {
            proxy: {
              ...(cluster.proxy.http !== undefined ? { http: cluster.proxy.http } : {}),
              ...(cluster.proxy.https !== undefined ? { https: cluster.proxy.https } : {}),
              noProxy: [...(cluster.proxy.noProxy ?? [])],
            },
          }
        : {}),
      registries: Object.fromEntries(
        Object.entries(cluster.registries ?? {}).map(([name, r]) => [
          name,
          {
            server: r.server ?? defaultRegistryServer(name),
            mirrors: [...(r.mirrors ?? [])],
            ...(r.usernameEnv !== undefined ? { usernameEnv: r.usernameEnv } : {}),
            ...(r.passwordEnv !== undefined ? { passwordEnv: r.passwordEnv } : {}),
          },
        ]),
      ),
      kubeProxy: { mode: cluster.kubeProxy?.mode ?? CLUSTER_DEFAULTS.kubeProxyMode, config: { ...(cluster.kubeProxy?.config ?? {}) } },
      metricsServer: { enabled: cluster.metricsServer?.enabled ?? CLUSTER_DEFAULTS.metricsServerEnabled },
      localPathStorage: {
        enabled: cluster.localPathStorage?.enabled ?? CLUSTER_DEFAULTS.localPathStorageEnabled,
        path: cluster.localPathStorage?.path ?? CLUSTER_DEFAULTS.localPathStoragePath,
      },
      networkPolicy: { enabled: cluster.networkPolicy?.enabled ?? CLUSTER_DEFAULTS.networkPolicyEnabled },
      dns: {
        upstreams: [...(cluster.dns?.upstreams ?? [])],
        stubDomains: Object.fromEntries(Object.entries(cluster.dns?.stubDomains ?? {}).map(([domain, servers]) => [domain, [...servers]])),
      },
      artifacts: {
        kind: artifacts.source ?? CLUSTER_DEFAULTS.artifactSource,
        ...(artifacts.bundle !== undefined ? { bundle: expandPath(artifacts.bundle, ctx) } : {}),
        mirrors: { ...(artifacts.mirrors ?? {}) },
        ...(artifacts.imageRepository !== undefined ? { imageRepository: artifacts.imageRepository } : {}),
        cacheDir: artifacts.cacheDir !== undefined ? expandPath(artifacts.cacheDir, ctx) : join(ctx.homeDir, '.kcluster', 'cache', 'artifacts'),
        uploadConcurrency: artifacts.uploadConcurrency ?? CLUSTER_DEFAULTS.uploadConcurrency,
        fanOut: artifacts.fanOut ?? CLUSTER_DEFAULTS.artifactFanOut,
      },
    },
    ssh: {
      connectTimeoutMs: parseDuration(sshDefaults.connectTimeout, SSH_DEFAULTS.connectTimeoutMs),
      keepaliveIntervalMs: parseDuration(sshDefaults.keepaliveInterval, SSH_DEFAULTS.keepaliveIntervalMs),
      keepaliveCountMax: sshDefaults.keepaliveCountMax ?? SSH_DEFAULTS.keepaliveCountMax,
      commandIdleTimeoutMs: parseDuration(sshDefaults.commandIdleTimeout, SSH_DEFAULTS.commandIdleTimeoutMs),
      connectRetries: sshDefaults.connectRetries ?? SSH_DEFAULTS.connectRetries,
      ...(sshDefaults.knownHostsFile !== undefined ? { knownHostsFile: expandPath(sshDefaults.knownHostsFile, ctx) } : {}),
    },
    stateDir: raw.stateDir !== undefined ? expandPath(raw.stateDir, ctx) : join(ctx.homeDir, '.kcluster', name),
    hosts,
    groups,
  };
}

export function defaultHomeDir(): string {
  return homedir();
}
