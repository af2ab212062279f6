// Preflight for a dual-stack cluster, on every host: its ipv6Address is on the interface that
// holds its IPv4 address (flannel sends both families' tunnels from one interface and refuses
// two), and a Node it registered before is not IPv4 only (Kubernetes never changes a Node's
// pod ranges, so an installed cluster cannot become dual-stack).
import { IPV4_ONLY_NODE } from '../../src/kubernetes/cluster/dual-stack.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { nodePodCidrs, type NodePodCidrs } from '../../src/kubernetes/facts/node-pod-cidr.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { addressInterface, ipv6AddressInterface, type AddressInterface } from '../../src/orchestrator/facts/address-interface.js';
import { checkOutcome, type CheckResult } from './checks.js';

export const DUAL_STACK_CHECK = 'dual-stack';

export interface DualStackFacts {
  readonly ipv4: AddressInterface;
  readonly ipv6: AddressInterface;
  readonly podCidrs: NodePodCidrs;
}

/** Pure: what the host's facts say of its part in a dual-stack cluster. */
export function dualStackProblem(host: { name: string; address: string; ipv6Address: string }, facts: DualStackFacts): CheckResult {
  if (facts.ipv6.dev === undefined)
    return {
      ok: false,
      problem: `no interface of ${host.name} has its ipv6Address ${host.ipv6Address}: give the host that address (on the interface that holds ${host.address}), or correct hosts[].ipv6Address (ip -6 -o addr show scope global lists the host's)`,
    };
  if (facts.ipv4.dev !== undefined && facts.ipv4.dev !== facts.ipv6.dev)
    return {
      ok: false,
      problem: `${host.ipv6Address} is on ${facts.ipv6.dev} and ${host.address} on ${facts.ipv4.dev}: flannel tunnels both families from one interface; give the host an IPv6 address on ${facts.ipv4.dev}`,
    };
  if (facts.podCidrs.assigned && facts.podCidrs.cidrs.length < 2)
    return {
      ok: false,
      problem: `the Node ${host.name} has the pod range ${facts.podCidrs.cidrs.join(', ')} only: ${IPV4_ONLY_NODE}`,
    };
  return { ok: true, note: `${host.address} and ${host.ipv6Address} on ${facts.ipv6.dev}` };
}

export function dualStackCheckTask(ignored: ReadonlySet<string>): Task<ReturnType<typeof factsFor>, null> {
  return {
    name: `preflight ${DUAL_STACK_CHECK}`,
    tags: ['preflight'],
    facts: (ctx) => factsFor(nodeAddress(ctx.host), ctx.host.ipv6Address ?? '', ctx.host.name),
    plan: (facts, ctx) =>
      checkOutcome(
        DUAL_STACK_CHECK,
        dualStackProblem({ name: ctx.host.name, address: nodeAddress(ctx.host), ipv6Address: ctx.host.ipv6Address ?? '' }, facts),
        ignored,
      ),
    apply: async () => {},
  };
}

function factsFor(
  address: string,
  ipv6Address: string,
  node: string,
): { ipv4: Fact<AddressInterface>; ipv6: Fact<AddressInterface>; podCidrs: Fact<NodePodCidrs> } {
  return { ipv4: addressInterface(address), ipv6: ipv6AddressInterface(ipv6Address), podCidrs: nodePodCidrs(node) };
}
