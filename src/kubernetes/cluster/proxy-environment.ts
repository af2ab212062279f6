// The HTTP(S) proxy (cluster.proxy) for the container runtime and the kubelet: a systemd
// drop-in per unit with HTTP_PROXY, HTTPS_PROXY and NO_PROXY (both spellings), where NO_PROXY
// always holds what must never go through a proxy: localhost, the pod and Service CIDRs, the
// cluster domain, every node's name and address (both families in a dual-stack cluster), and
// the API endpoint. Without a proxy the
// drop-in is removed again.
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { nodeAddresses } from './dual-stack.js';
import type { AnyTask } from '../../orchestrator/engine/types.js';
import { fileAbsent } from '../../orchestrator/tasks/file-absent.js';
import { managedFile } from '../../orchestrator/tasks/managed-file.js';

/** What NO_PROXY holds: kcluster's own destinations first, then the operator's, each once. */
export function noProxyList(inventory: Pick<Inventory, 'cluster' | 'hosts'>): string[] {
  const { cluster } = inventory;
  const own = [
    'localhost',
    '127.0.0.1',
    cluster.podCIDR,
    cluster.serviceCIDR,
    ...(cluster.ipv6 ? [cluster.ipv6.podCIDR, cluster.ipv6.serviceCIDR] : []),
    '.svc',
    `.${cluster.clusterDomain}`,
    ...(cluster.apiEndpoint.host !== undefined ? [cluster.apiEndpoint.host] : []),
    ...inventory.hosts.flatMap((h) => [h.name, ...nodeAddresses(h, cluster)]),
  ];
  return [...new Set([...own, ...(cluster.proxy?.noProxy ?? [])])];
}

/** The drop-in's text, or undefined without a proxy. */
export function proxyDropIn(inventory: Pick<Inventory, 'cluster' | 'hosts'>, header: string): string | undefined {
  const proxy = inventory.cluster.proxy;
  if (proxy === undefined) return undefined;
  const noProxy = noProxyList(inventory).join(',');
  const variables: [string, string][] = [
    ...(proxy.http !== undefined
      ? ([
          ['HTTP_PROXY', proxy.http],
          ['http_proxy', proxy.http],
        ] as [string, string][])
      : []),
    ...(proxy.https !== undefined
      ? ([
          ['HTTPS_PROXY', proxy.https],
          ['https_proxy', proxy.https],
        ] as [string, string][])
      : []),
    ['NO_PROXY', noProxy],
    ['no_proxy', noProxy],
  ];
  return `${header}\n[Service]\n${variables.map(([k, v]) => `Environment="${k}=${v}"`).join('\n')}\n`;
}

const HEADER = '# Managed by kcluster (cluster.proxy): local changes are replaced on the next run.';

/** The drop-in for one unit, or its removal when the inventory has no proxy; `notify` restarts the unit. */
export function proxyDropInTask(inventory: Inventory, unit: string, notify: readonly string[], tags: readonly string[]): AnyTask {
  const path = `/etc/systemd/system/${unit}.d/kcluster-proxy.conf`;
  const text = proxyDropIn(inventory, HEADER);
  if (text === undefined) return fileAbsent({ path, why: 'cluster.proxy is not set', tags, notify, invalidates: ['systemd:*'] });
  return managedFile({ name: `proxy for ${unit}`, path, content: () => text, mode: 0o644, notify, tags, invalidates: ['systemd:*'] });
}
