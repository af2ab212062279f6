// This node as the API sees it, read with the node's own credentials: Ready or not, its
// kubelet version, and whether it is cordoned (and by kcluster).
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { KUBELET_KUBECONFIG } from './node-pod-cidr.js';

export type NodeStatus =
  | { readonly known: false; readonly detail: string }
  | { readonly known: true; readonly ready: boolean; readonly kubeletVersion: string; readonly unschedulable: boolean; readonly cordonedByKcluster: boolean };

export function nodeStatus(node: string): Fact<NodeStatus> {
  return {
    key: `node-status:${node}`,
    become: true,
    script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${KUBELET_KUBECONFIG} --request-timeout=5s get node ${node} -o 'jsonpath={range .status.conditions[?(@.type=="Ready")]}{.status}{end} {.status.nodeInfo.kubeletVersion} {.spec.unschedulable} {.metadata.annotations.kcluster\\.io/cordoned}' 2>&1) && echo "node $out" || { echo unknown; printf '%s\\n' "$out" | tail -n 2; }`,
    parse(stdout) {
      const [first = '', ...rest] = stdout.trim().split('\n');
      if (!first.startsWith('node ')) return { known: false, detail: rest.join(' ').slice(0, 200) || first.slice(0, 200) };
      const [ready = '', version = '', unschedulable = '', cordoned = ''] = first.slice(5).split(' ');
      return {
        known: true,
        ready: ready === 'True',
        kubeletVersion: version,
        unschedulable: unschedulable === 'true',
        cordonedByKcluster: cordoned === 'true',
      };
    },
  };
}
