// Where CoreDNS sends names outside the cluster domain (cluster.dns): the upstreams, or each
// node's /etc/resolv.conf, and one server block per stub domain, in a stable order.
import type { DnsSettings } from '../../src/kubernetes/inventory/cluster-settings.js';

export interface CorednsForwarding {
  readonly upstreams: readonly string[];
  readonly stubDomains: readonly { readonly domain: string; readonly servers: readonly string[] }[];
}

/** CoreDNS's forward targets: the upstreams (or resolv.conf) and one server block per stub domain, sorted. */
export function corednsForwarding(dns: DnsSettings): CorednsForwarding {
  return {
    upstreams: dns.upstreams,
    stubDomains: Object.keys(dns.stubDomains)
      .sort()
      .map((domain) => ({ domain, servers: dns.stubDomains[domain]! })),
  };
}
