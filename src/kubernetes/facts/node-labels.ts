// A fact, read through the API from a control plane: every Node's labels (for the role labels
// kcluster puts on the nodes it installed).
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { ADMIN_KUBECONFIG } from './api-ready.js';

export type NodeLabels = { readonly reachable: true; readonly nodes: Readonly<Record<string, Readonly<Record<string, string>>>> } | { readonly reachable: false; readonly detail: string };

export function parseNodeLabels(stdout: string, exitCode: number): NodeLabels {
  if (exitCode !== 0) return { reachable: false, detail: stdout.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `kubectl exited ${exitCode}` };
  const list = JSON.parse(stdout) as { items?: { metadata: { name: string; labels?: Record<string, string> } }[] };
  return { reachable: true, nodes: Object.fromEntries((list.items ?? []).map((n) => [n.metadata.name, n.metadata.labels ?? {}])) };
}

export const nodeLabels: Fact<NodeLabels> = {
  key: 'node-labels',
  become: true,
  script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${ADMIN_KUBECONFIG} --request-timeout=20s get nodes -o json 2>&1) || { printf '%s\n' "$out" | tail -n 2; exit 3; }; printf '%s\n' "$out"`,
  parse: parseNodeLabels,
};
