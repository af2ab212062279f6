// A fact read on a control plane with the admin kubeconfig: whether a Node object exists, whether
// it is unschedulable, and the pods a drain would evict from it (not DaemonSet pods, not static
// pods' mirrors, not finished pods), by namespace/name.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { adminKubectl } from './admin-kubectl.js';

export type NodeDrainState = { readonly exists: false } | { readonly exists: true; readonly unschedulable: boolean; readonly evictable: readonly string[] };

interface PodItem {
  metadata: { name: string; namespace: string; annotations?: Record<string, string>; ownerReferences?: { kind: string }[] };
  status?: { phase?: string };
}

export function evictablePod(pod: PodItem): boolean {
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  if (pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return false;
  return !(pod.metadata.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet');
}

export function parseNodeDrainState(stdout: string): NodeDrainState {
  const [head = '', ...rest] = stdout.split('\n');
  if (head === 'node absent') return { exists: false };
  const match = /^node (true|false)$/.exec(head.trim());
  if (!match) throw new Error(`could not read the Node: ${stdout.trim().slice(0, 300)}`);
  const pods = JSON.parse(rest.join('\n')) as { items: PodItem[] };
  return {
    exists: true,
    unschedulable: match[1] === 'true',
    evictable: pods.items.filter(evictablePod).map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
  };
}

export function nodeDrainState(node: string): Fact<NodeDrainState> {
  const kubectl = adminKubectl(10);
  return {
    key: `node-drain:${node}`,
    become: true,
    script: sh`out=$(${kubectl} get node ${node} -o 'jsonpath={.spec.unschedulable}' 2>&1) || { case $out in *NotFound*) echo 'node absent'; exit 0 ;; esac; printf '%s\\n' "$out"; exit 1; }
echo "node \${out:-false}"
${kubectl} get pods --all-namespaces --field-selector ${`spec.nodeName=${node}`} -o json`,
    parse: parseNodeDrainState,
  };
}
