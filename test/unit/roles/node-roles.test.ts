// Node role labels as a table: the Nodes' labels as kubectl prints them in, the Change out.
import { describe, expect, it } from 'vitest';
import { parseNodeLabels } from '../../../src/kubernetes/facts/node-labels.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { nodeRolesTask } from '../../../roles/addons/node-roles.js';
import { hostContext } from '../tasks/support/host-context.js';

const inventory = {
  hosts: [
    { name: 'cp1', roles: ['control-plane', 'etcd'] },
    { name: 'w1', roles: ['worker'] },
    { name: 'w2', roles: ['worker'] },
  ],
} as unknown as Inventory;
const task = nodeRolesTask({ inventory });
const ctx = hostContext('node-1');
const nodes = (labels: Record<string, Record<string, string>>) =>
  parseNodeLabels(JSON.stringify({ items: Object.entries(labels).map(([name, l]) => ({ metadata: { name, labels: l } })) }), 0);

describe('node role labels', () => {
  it('labels each node with the roles the inventory gives it, only those missing', () => {
    const change = task.plan({ labels: nodes({ cp1: { 'kubernetes.io/hostname': 'cp1' }, w1: { 'node-role.kubernetes.io/worker': '' }, w2: {} }) }, ctx);
    expect(change).toEqual({
      kind: 'update',
      summary: 'label cp1 control-plane, w2 worker',
      payload: [
        ['cp1', 'node-role.kubernetes.io/control-plane'],
        ['w2', 'node-role.kubernetes.io/worker'],
      ],
    });
  });
  it('changes nothing when every node carries its labels (and leaves other labels alone)', () => {
    const change = task.plan(
      {
        labels: nodes({
          cp1: { 'node-role.kubernetes.io/control-plane': '' },
          w1: { 'node-role.kubernetes.io/worker': '', team: 'a' },
          w2: { 'node-role.kubernetes.io/worker': '' },
        }),
      },
      ctx,
    );
    expect(change.kind).toBe('none');
  });
  it('says why when the API cannot be read', () => {
    expect(parseNodeLabels('error: the server could not find the requested resource\n', 3)).toEqual({
      reachable: false,
      detail: 'error: the server could not find the requested resource',
    });
  });
});
