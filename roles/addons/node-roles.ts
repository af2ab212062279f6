// Node role labels: `kubectl get nodes` shows each node's role (node-role.kubernetes.io/
// control-plane, node-role.kubernetes.io/worker) as the inventory gives it. The kubelet may not
// set these labels on its own Node (NodeRestriction), so the first control plane does, through
// the API, once every node has registered (this runs after each node's pod network is in place).
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { nodeLabels } from '../../src/kubernetes/facts/node-labels.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

export const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';

/** The role labels each inventory host's Node carries. */
export function roleLabels(inputs: Pick<ClusterInputs, 'inventory'>): Map<string, string[]> {
  return new Map(
    inputs.inventory.hosts.map((h) => [
      h.name,
      [...(h.roles.includes('control-plane') ? ['control-plane'] : []), ...(h.roles.includes('worker') ? ['worker'] : [])].map(
        (r) => `${ROLE_LABEL_PREFIX}${r}`,
      ),
    ]),
  );
}

export function nodeRolesTask(inputs: Pick<ClusterInputs, 'inventory'>): Task<{ labels: typeof nodeLabels }, readonly (readonly [string, string])[]> {
  const wanted = roleLabels(inputs);
  return {
    name: 'node role labels',
    tags: ['addons', 'labels'],
    facts: () => ({ labels: nodeLabels }),
    plan: ({ labels }) => {
      if (!labels.reachable)
        return {
          kind: 'update',
          summary: `label every node with its role (the API cannot be read yet: ${labels.detail})`,
          payload: [...wanted].flatMap(([node, list]) => list.map((l) => [node, l] as const)),
        };
      const missing = [...wanted].flatMap(([node, list]) =>
        labels.nodes[node] ? list.filter((l) => labels.nodes[node]![l] === undefined).map((l) => [node, l] as const) : [],
      );
      if (missing.length === 0) return noChange(`${Object.keys(labels.nodes).length} nodes carry their role labels`);
      return { kind: 'update', summary: `label ${missing.map(([n, l]) => `${n} ${l.slice(ROLE_LABEL_PREFIX.length)}`).join(', ')}`, payload: missing };
    },
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(30);
      for (const [node, label] of change.payload) {
        await execChecked(ctx.connection, sh`${kubectl} label node ${node} ${`${label}=`} --overwrite`, { become: true, label: `label ${node}` });
      }
    },
    verify: true,
  };
}
