// Preflight for cluster.apiEndpoint.virtualIp: on every control plane, the address it is known
// by sits on an interface whose subnet holds the virtual IP. VRRP and the gratuitous ARP that
// moves the address only reach the same link; a virtual IP outside it would be held by a
// control plane that no client can reach.
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { cidrContains, parseIpv4 } from '../../src/kubernetes/inventory/cidr.js';
import type { VirtualIpSettings } from '../../src/kubernetes/inventory/cluster-settings.js';
import { checkOutcome, type CheckResult } from './checks.js';
import type { AnyTask, Task } from '../../src/orchestrator/engine/types.js';
import { onlyOnHosts } from '../../src/orchestrator/tasks/only-on-hosts.js';
import { addressInterface, type AddressInterface } from '../../src/orchestrator/facts/address-interface.js';

export const VIRTUAL_IP_CHECK = 'virtual-ip';

/** Whether `vip` shares the subnet `address/prefixLength`; the problem when it does not. */
export function virtualIpProblem(vip: string, address: string, found: AddressInterface): string | undefined {
  if (found.dev === undefined || found.prefixLength === undefined)
    return `no interface of this host has its inventory address ${address}, so keepalived has no interface to hold ${vip} on: give the host its address, or correct hosts[].address`;
  const a = parseIpv4(address);
  const v = parseIpv4(vip);
  if (a === undefined || v === undefined) return `${vip} or ${address} is not an IPv4 address`;
  const size = 2 ** (32 - found.prefixLength);
  const subnet = { base: a - (a % size), bits: found.prefixLength, text: `${address}/${found.prefixLength}` };
  if (!cidrContains(subnet, v))
    return `the virtual IP ${vip} is outside this host's subnet ${address}/${found.prefixLength} on ${found.dev}: VRRP and the ARP that moves the address reach only that link; choose a free address in it for cluster.apiEndpoint.host, or use a load balancer`;
  return undefined;
}

/** The check, on the control planes only (the others plan a skip). */
export function virtualIpCheckTask(vip: string, settings: VirtualIpSettings, ignored: ReadonlySet<string>, controlPlanes: readonly string[]): AnyTask {
  return onlyOnHosts(checkOnControlPlane(vip, settings, ignored), controlPlanes, 'not a control plane: keepalived runs on the control planes only');
}

function checkOnControlPlane(
  vip: string,
  settings: VirtualIpSettings,
  ignored: ReadonlySet<string>,
): Task<{ iface: ReturnType<typeof addressInterface> }, null> {
  return {
    name: `preflight ${VIRTUAL_IP_CHECK}`,
    tags: ['preflight'],
    facts: (ctx) => ({ iface: addressInterface(nodeAddress(ctx.host)) }),
    plan: (facts, ctx) => {
      const problem = virtualIpProblem(vip, nodeAddress(ctx.host), facts.iface);
      const result: CheckResult =
        problem === undefined
          ? { ok: true, note: `${vip} shares ${facts.iface.dev}'s subnet (/${String(facts.iface.prefixLength)}); VRRP router id ${settings.routerId}` }
          : { ok: false, problem };
      return checkOutcome(VIRTUAL_IP_CHECK, result, ignored);
    },
    apply: async () => {},
  };
}
