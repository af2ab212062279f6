// A fact, read through the API from a control plane: every Node's labels, annotations and
// taints (for the role labels, and the operator's labels and taints, kcluster puts on the nodes
// it installed).
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { adminKubectl } from './admin-kubectl.js';

export interface NodeTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface NodeMetadata {
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly NodeTaint[];
}

/** `nodes`: each Node's labels; `metadata`: its annotations and taints. */
export type NodeLabels =
  | {
      readonly reachable: true;
      readonly nodes: Readonly<Record<string, Readonly<Record<string, string>>>>;
      readonly metadata: Readonly<Record<string, NodeMetadata>>;
    }
  | { readonly reachable: false; readonly detail: string };

export function parseNodeLabels(stdout: string, exitCode: number): NodeLabels {
  if (exitCode !== 0) return { reachable: false, detail: stdout.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `kubectl exited ${exitCode}` };
  const list = JSON.parse(stdout) as {
    items?: { metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: { taints?: NodeTaint[] } }[];
  };
  const items = list.items ?? [];
  return {
    reachable: true,
    nodes: Object.fromEntries(items.map((n) => [n.metadata.name, n.metadata.labels ?? {}])),
    metadata: Object.fromEntries(
      items.map((n) => [
        n.metadata.name,
        {
          annotations: n.metadata.annotations ?? {},
          taints: (n.spec?.taints ?? []).map((t) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect })),
        },
      ]),
    ),
  };
}

export const nodeLabels: Fact<NodeLabels> = {
  key: 'node-labels',
  become: true,
  script: sh`out=$(${adminKubectl(20)} get nodes -o json 2>&1) || { printf '%s\n' "$out" | tail -n 2; exit 3; }; printf '%s\n' "$out"`,
  parse: parseNodeLabels,
};
