// The pod CIDR the controller-manager assigned to this node (Node spec.podCIDR), read with the
// node's own kubelet credentials (the node authorizer lets a node read its own Node object).
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';

export const KUBELET_KUBECONFIG = '/etc/kubernetes/kubelet.conf';

export type NodePodCidr = { readonly assigned: true; readonly cidr: string } | { readonly assigned: false; readonly detail: string };

export function nodePodCidr(node: string): Fact<NodePodCidr> {
  return {
    key: `node-pod-cidr:${node}`,
    become: true,
    script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${KUBELET_KUBECONFIG} --request-timeout=5s get node ${node} -o 'jsonpath={.spec.podCIDR}' 2>&1) && echo "cidr $out" || { echo none; printf '%s\\n' "$out" | tail -n 2; }`,
    parse(stdout) {
      const [first = '', ...rest] = stdout.trim().split('\n');
      const m = /^cidr ([0-9.]+\/[0-9]+)$/.exec(first);
      if (m) return { assigned: true, cidr: m[1]! };
      if (first === 'cidr' || first === 'cidr ') return { assigned: false, detail: 'no pod CIDR assigned yet' };
      if (first === 'none') return { assigned: false, detail: rest.join(' ').slice(0, 300) };
      throw new Error(`unexpected pod CIDR output "${first.slice(0, 80)}"`);
    },
  };
}

/** Both of a dual-stack node's pod ranges (spec.podCIDRs), IPv4 first as the controller-manager assigns them. */
export type NodePodCidrs = { readonly assigned: true; readonly cidrs: readonly string[] } | { readonly assigned: false; readonly detail: string };

/** spec.podCIDRs, read only in dual-stack clusters (nodePodCidr serves IPv4-only ones). */
export function nodePodCidrs(node: string): Fact<NodePodCidrs> {
  return {
    key: `node-pod-cidrs:${node}`,
    become: true,
    script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${KUBELET_KUBECONFIG} --request-timeout=5s get node ${node} -o 'jsonpath={.spec.podCIDRs[*]}' 2>&1) && echo "cidrs $out" || { echo none; printf '%s\\n' "$out" | tail -n 2; }`,
    parse(stdout) {
      const [first = '', ...rest] = stdout.trim().split('\n');
      const m = /^cidrs ?(.*)$/.exec(first);
      if (m) {
        const cidrs = m[1]!.split(/\s+/).filter((c) => c !== '');
        if (cidrs.some((c) => !/^[0-9a-fA-F.:]+\/[0-9]+$/.test(c))) throw new Error(`unexpected pod CIDRs "${first.slice(0, 120)}"`);
        return cidrs.length > 0 ? { assigned: true, cidrs } : { assigned: false, detail: 'no pod CIDR assigned yet' };
      }
      if (first === 'none') return { assigned: false, detail: rest.join(' ').slice(0, 300) };
      throw new Error(`unexpected pod CIDRs output "${first.slice(0, 80)}"`);
    },
  };
}
