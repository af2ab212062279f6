// cluster.apiEndpoint.virtualIp: the address kcluster holds must be named, be an IPv4 address
// no host already has, and keepalived must come from a bundle. Whether it lies in the control
// planes' subnet only the hosts can tell: preflight checks that (roles/preflight).
import { CLUSTER_DEFAULTS } from './defaults.js';
import { parseIpv4 } from './cidr.js';
import type { RawInventory } from './raw-inventory.js';
import type { Report } from './semantic-checks.js';
import { listAt, recordAt, stringAt } from './shape.js';

export function checkVirtualIp(raw: RawInventory, report: Report): void {
  const cluster = recordAt(raw, 'cluster') ?? {};
  const endpoint = recordAt(cluster, 'apiEndpoint') ?? {};
  if (recordAt(endpoint, 'virtualIp') === undefined) return;
  const at = ['cluster', 'apiEndpoint', 'virtualIp'];
  const host = stringAt(endpoint, 'host');
  if (host === undefined) {
    report(at, "needs cluster.apiEndpoint.host: the free address in the control planes' subnet that kcluster should hold (e.g. host: 192.168.56.10)");
  } else if (parseIpv4(host) === undefined) {
    report(
      ['cluster', 'apiEndpoint', 'host'],
      `is "${host}", and a virtual IP must be an IPv4 address: name the address itself (its DNS name can go in apiServer.certSANs)`,
    );
  } else {
    (listAt(raw, 'hosts') ?? []).forEach((h, i) => {
      if (stringAt(h, 'address') === host)
        report(
          ['cluster', 'apiEndpoint', 'host'],
          `${host} is the address of hosts[${i}] (${stringAt(h, 'name') ?? '?'}): a virtual IP must be a free address that keepalived moves between the control planes`,
        );
    });
  }
  // keepalived names its peers and its own source by address, and finds its interface by it.
  (listAt(raw, 'hosts') ?? []).forEach((h, i) => {
    const address = stringAt(h, 'address');
    const controlPlane = (listAt(h, 'roles') ?? []).includes('control-plane');
    if (controlPlane && address !== undefined && parseIpv4(address) === undefined)
      report(
        ['hosts', i, 'address'],
        `is "${address}", and with cluster.apiEndpoint.virtualIp every control plane needs an IPv4 address here (keepalived's peers and interface are found by it): write the host's IPv4 address`,
      );
  });
  const source = recordAt(cluster, 'artifacts')?.['source'] ?? CLUSTER_DEFAULTS.artifactSource;
  if (source !== 'bundle')
    report(
      at,
      `needs cluster.artifacts.source: bundle (keepalived, which holds the address, is built into bundles from Debian's source package; no release kcluster uses publishes it), and source is ${String(source)}: use a bundle, or put a load balancer at apiEndpoint.host and remove virtualIp`,
    );
}
