// Cluster checks (the version format is the schema's): CIDRs (valid, disjoint, clear of host addresses), artifacts.
import { CLUSTER_DEFAULTS } from './defaults.js';
import { cidrContains, cidrsOverlap, parseCidr, parseIpv4, type Cidr } from './cidr.js';
import type { RawInventory } from './raw-inventory.js';
import type { Report } from './semantic-checks.js';
import { listAt, recordAt, stringAt } from './shape.js';

type CidrKey = 'podCIDR' | 'serviceCIDR';

/** The CIDR in effect, or undefined when the written one is invalid (then it is reported). */
function cidrOf(cluster: Record<string, unknown>, key: CidrKey, report: Report): Cidr | undefined {
  const written = cluster[key];
  if (written === undefined) return parseCidr(CLUSTER_DEFAULTS[key]) as Cidr;
  if (typeof written !== 'string') return undefined;
  const parsed = parseCidr(written);
  if (typeof parsed !== 'string') return parsed;
  report(['cluster', key], `${parsed} (got "${written}")`);
  return undefined;
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
      if (artifacts[key] !== undefined) report(['cluster', 'artifacts', key], 'is ignored while source is bundle (the bundle carries every binary and image): remove it, or set source: release', 'warning');
    }
  }
}

export function checkCluster(raw: RawInventory, report: Report): void {
  const cluster = recordAt(raw, 'cluster') ?? {};
  const pod = cidrOf(cluster, 'podCIDR', report);
  const service = cidrOf(cluster, 'serviceCIDR', report);
  if (pod && service && cidrsOverlap(pod, service)) {
    const at: CidrKey = cluster['serviceCIDR'] !== undefined ? 'serviceCIDR' : 'podCIDR';
    report(['cluster', at], `pod CIDR ${pod.text} and service CIDR ${service.text} overlap: choose disjoint ranges`);
  }
  (listAt(raw, 'hosts') ?? []).forEach((host, i) => {
    const written = stringAt(host, 'address');
    const address = written === undefined ? undefined : parseIpv4(written);
    if (address === undefined) return;
    for (const [name, cidr] of [['pod', pod], ['service', service]] as const) {
      if (cidr && cidrContains(cidr, address)) {
        report(['hosts', i, 'address'], `${written} lies inside the ${name} CIDR ${cidr.text}: traffic to this host would be routed into the cluster`, 'warning');
      }
    }
  });
  checkArtifacts(cluster, report);
}
