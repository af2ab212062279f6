// Cluster checks (the version format is the schema's): CIDRs (valid, disjoint, clear of host
// addresses; both families or one), each host's IPv6 address in a dual-stack cluster, artifacts.
import { CLUSTER_DEFAULTS } from './defaults.js';
import { cidrContains, cidrsOverlap, parseIpv4 } from './cidr.js';
import { clusterCidrsOf, DUAL_STACK_EXAMPLE, parseClusterCidrs, type ClusterCidrKey, type ClusterCidrs } from './cluster-cidrs.js';
import { cidr6Contains, cidrs6Overlap, parseIpv6 } from './ipv6.js';
import type { RawInventory } from './raw-inventory.js';
import type { Report } from './semantic-checks.js';
import { listAt, recordAt, stringAt } from './shape.js';

/** The ranges in effect, or undefined when the written text is invalid (then it is reported). */
function cidrsOf(cluster: Record<string, unknown>, key: ClusterCidrKey, report: Report): ClusterCidrs | undefined {
  const written = cluster[key];
  if (written === undefined) return clusterCidrsOf(CLUSTER_DEFAULTS[key], key);
  if (typeof written !== 'string') return undefined;
  const parsed = parseClusterCidrs(written, key);
  if (typeof parsed !== 'string') return parsed;
  report(['cluster', key], `${parsed}`);
  return undefined;
}

function checkHostAddress(host: unknown, i: number, pod: ClusterCidrs | undefined, service: ClusterCidrs | undefined, report: Report): void {
  const written = stringAt(host, 'address');
  const address = written === undefined ? undefined : parseIpv4(written);
  if (address === undefined) return;
  for (const [name, cidr] of [
    ['pod', pod?.ipv4],
    ['service', service?.ipv4],
  ] as const) {
    if (cidr && cidrContains(cidr, address)) {
      report(['hosts', i, 'address'], `${written} lies inside the ${name} CIDR ${cidr.text}: traffic to this host would be routed into the cluster`, 'warning');
    }
  }
}

/** A dual-stack cluster needs each node's IPv6 address (the kubelet's second --node-ip, flannel's IPv6 endpoint). */
function checkHostIpv6Address(
  host: unknown,
  i: number,
  dualStack: boolean,
  pod: ClusterCidrs | undefined,
  service: ClusterCidrs | undefined,
  report: Report,
): void {
  const written = stringAt(host, 'ipv6Address');
  const name = stringAt(host, 'name') ?? `hosts[${i}]`;
  if (written === undefined) {
    if (dualStack)
      report(
        ['hosts', i],
        `${name} has no ipv6Address, and the cluster is dual-stack (podCIDR and serviceCIDR have an IPv6 range): give its IPv6 address on the interface that holds its address (ip -6 -o addr show scope global)`,
      );
    return;
  }
  const address = parseIpv6(written);
  if (address === undefined) {
    report(['hosts', i, 'ipv6Address'], `"${written}" is not an IPv6 address (such as fd00:231:30::11)`);
    return;
  }
  if (!dualStack) {
    report(
      ['hosts', i, 'ipv6Address'],
      'is not used: the cluster is IPv4 only. Add an IPv6 range to cluster.podCIDR and cluster.serviceCIDR for a dual-stack cluster, or remove it',
      'warning',
    );
    return;
  }
  for (const [kind, cidr] of [
    ['pod', pod?.ipv6],
    ['service', service?.ipv6],
  ] as const) {
    if (cidr && cidr6Contains(cidr, address))
      report(
        ['hosts', i, 'ipv6Address'],
        `${written} lies inside the ${kind} CIDR ${cidr.text}: traffic to this host would be routed into the cluster`,
        'warning',
      );
  }
}

function checkArtifacts(cluster: Record<string, unknown>, report: Report): void {
  const artifacts = recordAt(cluster, 'artifacts');
  if (!artifacts) return;
  const source = artifacts['source'] ?? CLUSTER_DEFAULTS.artifactSource;
  if (source === 'bundle' && artifacts['bundle'] === undefined) {
    report(['cluster', 'artifacts'], 'missing required key "bundle": source: bundle needs the path of the bundle (a directory or tarball)');
  } else if (source === 'release' && artifacts['bundle'] !== undefined) {
    report(['cluster', 'artifacts', 'bundle'], 'is ignored while source is release: set source: bundle to use it, or remove it', 'warning');
  }
  if (source === 'bundle') {
    for (const key of ['mirrors', 'imageRepository'] as const) {
      if (artifacts[key] !== undefined)
        report(
          ['cluster', 'artifacts', key],
          'is ignored while source is bundle (the bundle carries every binary and image): remove it, or set source: release',
          'warning',
        );
    }
  }
}

/** A stub domain that is the cluster domain (or inside it) would take those names from the
 * kubernetes plugin: Services would stop resolving. */
function checkStubDomains(cluster: Record<string, unknown>, report: Report): void {
  const stubs = recordAt(recordAt(cluster, 'dns') ?? {}, 'stubDomains');
  if (!stubs) return;
  const clusterDomain = stringAt(cluster, 'clusterDomain') ?? CLUSTER_DEFAULTS.clusterDomain;
  for (const domain of Object.keys(stubs)) {
    if (domain === clusterDomain || domain.endsWith(`.${clusterDomain}`) || clusterDomain.endsWith(`.${domain}`)) {
      report(
        ['cluster', 'dns', 'stubDomains', domain],
        `overlaps the cluster domain ${clusterDomain}: Service and Pod names would no longer resolve; use a domain outside it`,
      );
    }
  }
}

/** Helm keeps one release of a name per namespace: two entries for the same one would fight. */
function checkCharts(cluster: Record<string, unknown>, report: Report): void {
  const seen = new Map<string, number>();
  (listAt(cluster, 'charts') ?? []).forEach((chart, i) => {
    const release = stringAt(chart, 'release');
    const namespace = stringAt(chart, 'namespace');
    if (release === undefined || namespace === undefined) return;
    const first = seen.get(`${namespace}/${release}`);
    if (first !== undefined)
      report(
        ['cluster', 'charts', i, 'release'],
        `release ${release} in namespace ${namespace} is also cluster.charts[${first}]: give each chart its own release name`,
      );
    else seen.set(`${namespace}/${release}`, i);
  });
}

/** Credentials come in pairs; plain HTTP is allowed with a warning; Docker Engine takes mirrors only for docker.io. */
function checkRegistries(cluster: Record<string, unknown>, report: Report): void {
  const registries = recordAt(cluster, 'registries');
  if (!registries) return;
  const docker = (cluster['containerRuntime'] ?? CLUSTER_DEFAULTS.containerRuntime) === 'docker';
  for (const [name, value] of Object.entries(registries)) {
    if (typeof value !== 'object' || value === null) continue;
    const registry = value as Record<string, unknown>;
    const at = ['cluster', 'registries', name];
    if ((registry['usernameEnv'] === undefined) !== (registry['passwordEnv'] === undefined)) {
      report(
        at,
        `${registry['usernameEnv'] === undefined ? 'passwordEnv without usernameEnv' : 'usernameEnv without passwordEnv'}: set both (the names of the controller's environment variables with the user name and the password), or neither`,
      );
    }
    const server = registry['server'];
    if (typeof server === 'string' && server.startsWith('http://'))
      report(
        [...at, 'server'],
        `${server} is plain HTTP: images${registry['passwordEnv'] ? ' and the credentials' : ''} travel unencrypted; use https:// where the registry offers it`,
        'warning',
      );
    const mirrors = Array.isArray(registry['mirrors']) ? (registry['mirrors'] as unknown[]) : [];
    mirrors.forEach((mirror, i) => {
      if (typeof mirror === 'string' && mirror.startsWith('http://'))
        report(
          [...at, 'mirrors', i],
          `${mirror} is plain HTTP: images${registry['passwordEnv'] ? ' and the credentials' : ''} travel unencrypted; use https:// where the mirror offers it`,
          'warning',
        );
    });
    if (docker && mirrors.length > 0 && name !== 'docker.io')
      report(
        [...at, 'mirrors'],
        'Docker Engine takes mirrors only for docker.io: use containerRuntime containerd for mirrors of other registries, or remove them',
      );
    if (docker && typeof server === 'string' && URL.canParse(server) && new URL(server).host !== name && name !== 'docker.io')
      report(
        [...at, 'server'],
        `Docker Engine reaches a registry only at its own name (${name}): remove server, or name the registry by the host it answers on`,
      );
  }
}

function checkProxy(cluster: Record<string, unknown>, report: Report): void {
  const proxy = recordAt(cluster, 'proxy');
  if (proxy && proxy['http'] === undefined && proxy['https'] === undefined)
    report(['cluster', 'proxy'], 'neither http nor https is set, so no proxy is used and noProxy is ignored: set one, or remove cluster.proxy', 'warning');
}

/** The control planes copy scheduled snapshots only when there are some, with the uploader from a bundle. */
function checkScheduledSnapshotUpload(cluster: Record<string, unknown>, report: Report): void {
  if (recordAt(recordAt(cluster, 'state') ?? {}, 'scheduledSnapshots') === undefined) return;
  const at = ['cluster', 'state', 'scheduledSnapshots'];
  const snapshots = recordAt(recordAt(cluster, 'etcd') ?? {}, 'snapshots') ?? {};
  if ((snapshots['enabled'] ?? CLUSTER_DEFAULTS.etcdSnapshotsEnabled) === false)
    report(at, 'cluster.etcd.snapshots.enabled is false, so there are no scheduled snapshots to copy: enable them, or remove scheduledSnapshots');
  const source = recordAt(cluster, 'artifacts')?.['source'] ?? CLUSTER_DEFAULTS.artifactSource;
  if (source !== 'bundle')
    report(
      at,
      `needs cluster.artifacts.source: bundle (the control planes' uploader, kcluster-snapshot-upload, is built into bundles; no release publishes it), and source is ${String(source)}: use a bundle, or remove scheduledSnapshots and save snapshots into the store with kcluster etcd snapshot save`,
    );
}

export function checkCluster(raw: RawInventory, report: Report): void {
  const cluster = recordAt(raw, 'cluster') ?? {};
  const pod = cidrsOf(cluster, 'podCIDR', report);
  const service = cidrsOf(cluster, 'serviceCIDR', report);
  const at: ClusterCidrKey = cluster['serviceCIDR'] !== undefined ? 'serviceCIDR' : 'podCIDR';
  if (pod && service && cidrsOverlap(pod.ipv4, service.ipv4))
    report(['cluster', at], `pod CIDR ${pod.ipv4.text} and service CIDR ${service.ipv4.text} overlap: choose disjoint ranges`);
  if (pod?.ipv6 && service?.ipv6 && cidrs6Overlap(pod.ipv6, service.ipv6))
    report(['cluster', at], `pod CIDR ${pod.ipv6.text} and service CIDR ${service.ipv6.text} overlap: choose disjoint ranges`);
  if (pod && service && (pod.ipv6 === undefined) !== (service.ipv6 === undefined)) {
    const [has, lacks]: [ClusterCidrKey, ClusterCidrKey] = pod.ipv6 ? ['podCIDR', 'serviceCIDR'] : ['serviceCIDR', 'podCIDR'];
    report(
      ['cluster', lacks],
      `${has} has an IPv6 range and ${lacks} has none: a dual-stack cluster needs both (such as ${DUAL_STACK_EXAMPLE[lacks]}), an IPv4-only one neither`,
    );
  }
  const dualStack = pod?.ipv6 !== undefined && service?.ipv6 !== undefined;
  (listAt(raw, 'hosts') ?? []).forEach((host, i) => {
    checkHostAddress(host, i, pod, service, report);
    checkHostIpv6Address(host, i, dualStack, pod, service, report);
  });
  checkArtifacts(cluster, report);
  checkStubDomains(cluster, report);
  checkRegistries(cluster, report);
  checkCharts(cluster, report);
  checkProxy(cluster, report);
  checkScheduledSnapshotUpload(cluster, report);
}
