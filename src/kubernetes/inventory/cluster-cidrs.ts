// cluster.podCIDR and cluster.serviceCIDR: an IPv4 range, or an IPv4 and an IPv6 range
// separated by a comma (a dual-stack cluster), as the Kubernetes flags take them. IPv4 comes
// first: kcluster makes IPv4-primary clusters (node addresses, the kubernetes and DNS Services,
// etcd and the API endpoint stay IPv4; pods and Services get both families).
import { parseCidr, type Cidr } from './cidr.js';
import { parseCidr6, type Cidr6 } from './ipv6.js';

export type ClusterCidrKey = 'podCIDR' | 'serviceCIDR';

export interface ClusterCidrs {
  readonly ipv4: Cidr;
  /** Present in a dual-stack cluster. */
  readonly ipv6?: Cidr6;
}

/** Each node gets a /64 of the IPv6 pod range (the controller-manager's default); it hands out at most 2^16 of them. */
const POD6_PREFIX = { min: 48, max: 63 } as const;
/** The API server keeps a bitmap of at most 2^20 addresses per Service range; the tenth address must exist. */
const SERVICE6_PREFIX = { min: 108, max: 120 } as const;

/** kcluster's example dual-stack ranges: in its messages, and in the inventory of a lab with IPv6. */
export const DUAL_STACK_EXAMPLE: Readonly<Record<ClusterCidrKey, string>> = {
  podCIDR: '10.244.0.0/16,fd00:10:244::/56',
  serviceCIDR: '10.96.0.0/12,fd00:10:96::/112',
};

/** The ranges, or what is wrong with the text (to follow "cluster.<key>: "). */
export function parseClusterCidrs(text: string, key: ClusterCidrKey): ClusterCidrs | string {
  const parts = text.split(',');
  if (parts.length > 2) return `takes at most two ranges, an IPv4 one and an IPv6 one (such as ${DUAL_STACK_EXAMPLE[key]}); got ${parts.length}`;
  const [first = '', second] = parts;
  if (first.includes(':')) {
    return second === undefined
      ? `an IPv6-only cluster is not supported: give an IPv4 range first and the IPv6 one after it (such as ${DUAL_STACK_EXAMPLE[key]})`
      : `list the IPv4 range first (such as ${DUAL_STACK_EXAMPLE[key]}): kcluster makes IPv4-primary dual-stack clusters`;
  }
  const ipv4 = parseCidr(first);
  if (typeof ipv4 === 'string') return `${ipv4} (got "${first}")`;
  if (second === undefined) return { ipv4 };
  const ipv6 = parseCidr6(second);
  if (typeof ipv6 === 'string') return `the second range: ${ipv6} (got "${second}")`;
  const limits = key === 'podCIDR' ? POD6_PREFIX : SERVICE6_PREFIX;
  if (ipv6.bits < limits.min || ipv6.bits > limits.max) {
    const why =
      key === 'podCIDR'
        ? 'each node gets a /64 of it, and the controller-manager hands out at most 65536 of them'
        : 'the API server keeps at most 2^20 addresses of a Service range';
    return `the IPv6 range ${second} must be /${limits.min} to /${limits.max}: ${why}`;
  }
  return { ipv4, ipv6 };
}

/** The ranges of a setting that inventory checks have passed: throws on text they would have refused. */
export function clusterCidrsOf(text: string, key: ClusterCidrKey): ClusterCidrs {
  const parsed = parseClusterCidrs(text, key);
  if (typeof parsed === 'string') throw new Error(`cluster.${key} ${text}: ${parsed}`);
  return parsed;
}
