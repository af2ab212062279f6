// The operator's node labels and taints (vars nodeLabels and nodeTaints, per host through the
// vars precedence), put on each Node through the API by the first control plane, and taken off
// again when they leave the inventory: kcluster records on the Node (annotation
// kcluster.io/managed) which labels and taints it set, and removes only those, never one
// somebody else put there. Var controlPlaneTaint, when set, adds or removes the control-plane
// taint the kubelet registers with (a cluster without workers never gets it).
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { controlPlaneTaintOf, nodeLabelsOf, nodeTaintsOf, type WantedTaint } from '../../src/kubernetes/cluster/node-vars.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { nodeLabels, type NodeLabels, type NodeTaint } from '../../src/kubernetes/facts/node-labels.js';
import { CONTROL_PLANE_TAINT as KUBELET_CONTROL_PLANE_TAINT } from '../kubelet/index.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

export const MANAGED_ANNOTATION = 'kcluster.io/managed';
/** The taint the kubelet registers a control plane with, as the API shows it. */
const CONTROL_PLANE_TAINT: WantedTaint = (() => {
  const [key, effect] = KUBELET_CONTROL_PLANE_TAINT.split(':') as [string, WantedTaint['effect']];
  return { key, effect };
})();

export interface WantedNodeMetadata {
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly WantedTaint[];
  /** Taints to take off even if kcluster did not record them (the control-plane taint, turned off). */
  readonly forbiddenTaints: readonly WantedTaint[];
}

export interface NodeMetadataChange {
  readonly node: string;
  readonly setLabels: readonly (readonly [string, string])[];
  readonly removeLabels: readonly string[];
  readonly addTaints: readonly WantedTaint[];
  readonly removeTaints: readonly NodeTaint[];
  /** The annotation's new value, when it changes. */
  readonly managed?: string;
}

const taintId = (t: { key: string; effect: string }): string => `${t.key}:${t.effect}`;
const sameTaint = (a: { key: string; value?: string; effect: string }, b: { key: string; value?: string; effect: string }): boolean =>
  taintId(a) === taintId(b) && (a.value ?? '') === (b.value ?? '');

/** What each host's Node should carry, from its vars. */
export function wantedNodeMetadata(inputs: Pick<ClusterInputs, 'inventory'>): Map<string, WantedNodeMetadata> {
  const { inventory } = inputs;
  const hasWorkers = inventory.hosts.some((h) => h.roles.includes('worker'));
  return new Map(
    inventory.hosts.map((host) => {
      const ctx = { host, vars: host.vars };
      const cpTaintSet = host.roles.includes('control-plane') && host.vars['controlPlaneTaint'] !== undefined;
      const cpTaint = cpTaintSet && controlPlaneTaintOf(ctx) && hasWorkers;
      return [
        host.name,
        {
          labels: nodeLabelsOf(ctx),
          taints: [...nodeTaintsOf(ctx), ...(cpTaint ? [CONTROL_PLANE_TAINT] : [])],
          forbiddenTaints: cpTaintSet && !cpTaint ? [CONTROL_PLANE_TAINT] : [],
        },
      ];
    }),
  );
}

interface Managed {
  readonly labels: readonly string[];
  readonly taints: readonly string[];
}

function managedOf(annotations: Readonly<Record<string, string>>): Managed {
  try {
    const parsed = JSON.parse(annotations[MANAGED_ANNOTATION] ?? '{}') as Partial<Managed>;
    return { labels: Array.isArray(parsed.labels) ? parsed.labels : [], taints: Array.isArray(parsed.taints) ? parsed.taints : [] };
  } catch {
    return { labels: [], taints: [] };
  }
}

/** Pure: the changes that bring each registered Node to what the inventory wants. */
export function nodeMetadataChanges(wanted: ReadonlyMap<string, WantedNodeMetadata>, facts: Extract<NodeLabels, { reachable: true }>): NodeMetadataChange[] {
  const changes: NodeMetadataChange[] = [];
  for (const [node, want] of wanted) {
    const labels = facts.nodes[node];
    const meta = facts.metadata[node];
    if (!labels || !meta) continue; // not registered (yet)
    const managed = managedOf(meta.annotations);
    const setLabels = Object.entries(want.labels).filter(([k, v]) => labels[k] !== v);
    const removeLabels = managed.labels.filter((k) => !(k in want.labels) && k in labels);
    const addTaints = want.taints.filter((t) => !meta.taints.some((have) => sameTaint(have, t)));
    const wantedIds = new Set(want.taints.map(taintId));
    const removable = new Set([...managed.taints, ...want.forbiddenTaints.map(taintId)]);
    // A wanted taint present with another value is replaced: the old one goes first.
    const removeTaints = meta.taints.filter(
      (t) => (removable.has(taintId(t)) && !wantedIds.has(taintId(t))) || addTaints.some((a) => taintId(a) === taintId(t)),
    );
    const nextManaged: Managed = { labels: Object.keys(want.labels).sort(), taints: want.taints.map(taintId).sort() };
    const annotation = JSON.stringify(nextManaged);
    const annotationChanges = (meta.annotations[MANAGED_ANNOTATION] ?? JSON.stringify({ labels: [], taints: [] })) !== annotation;
    if (setLabels.length + removeLabels.length + addTaints.length + removeTaints.length === 0 && !annotationChanges) continue;
    changes.push({ node, setLabels, removeLabels, addTaints, removeTaints, ...(annotationChanges ? { managed: annotation } : {}) });
  }
  return changes;
}

const taintText = (t: { key: string; value?: string; effect: string }): string => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;

export function describeNodeMetadataChange(c: NodeMetadataChange): string {
  const parts = [
    ...c.setLabels.map(([k, v]) => `label ${k}=${v}`),
    ...c.removeLabels.map((k) => `unlabel ${k}`),
    ...c.removeTaints.map((t) => `untaint ${taintText(t)}`),
    ...c.addTaints.map((t) => `taint ${taintText(t)}`),
  ];
  return `${c.node}: ${parts.length > 0 ? parts.join(', ') : 'record what kcluster manages'}`;
}

export function nodeMetadataTask(inputs: Pick<ClusterInputs, 'inventory'>): Task<{ nodes: typeof nodeLabels }, readonly NodeMetadataChange[]> {
  const wanted = wantedNodeMetadata(inputs);
  return {
    name: 'node labels and taints',
    tags: ['addons', 'labels'],
    facts: () => ({ nodes: nodeLabels }),
    plan: ({ nodes }) => {
      if (!nodes.reachable) return { kind: 'wait', summary: `wait for the API server to answer (${nodes.detail})`, payload: [] };
      const changes = nodeMetadataChanges(wanted, nodes);
      if (changes.length === 0) return noChange(`${wanted.size} nodes carry the labels and taints the inventory gives them`);
      return { kind: 'update', summary: changes.map(describeNodeMetadataChange).join('; '), payload: changes };
    },
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(30);
      for (const c of change.payload) {
        const run = (what: string, command: ReturnType<typeof sh>) => execChecked(ctx.connection, command, { become: true, label: `${what} ${c.node}` });
        if (c.setLabels.length > 0 || c.removeLabels.length > 0) {
          await run(
            'label',
            sh`${kubectl} label node ${c.node} ${[...c.setLabels.map(([k, v]) => `${k}=${v}`), ...c.removeLabels.map((k) => `${k}-`)]} --overwrite`,
          );
        }
        for (const t of c.removeTaints) await run('untaint', sh`${kubectl} taint node ${c.node} ${`${t.key}:${t.effect}-`}`);
        if (c.addTaints.length > 0) await run('taint', sh`${kubectl} taint node ${c.node} ${c.addTaints.map(taintText)} --overwrite`);
        if (c.managed !== undefined) await run('annotate', sh`${kubectl} annotate node ${c.node} ${`${MANAGED_ANNOTATION}=${c.managed}`} --overwrite`);
      }
    },
    verify: true,
  };
}
