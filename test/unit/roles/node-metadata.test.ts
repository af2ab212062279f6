// The operator's node labels and taints as a table: what the inventory wants per host, what
// the Nodes carry (as kubectl prints them), the changes out. kcluster removes only what it
// recorded on the Node as its own.
import { describe, expect, it } from 'vitest';
import { parseNodeLabels } from '../../../src/kubernetes/facts/node-labels.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { describeNodeMetadataChange, MANAGED_ANNOTATION, nodeMetadataChanges, wantedNodeMetadata } from '../../../roles/addons/node-metadata.js';

type Host = { name: string; roles: string[]; vars: Record<string, unknown> };
const inventoryOf = (hosts: Host[]) => ({ inventory: { hosts } as unknown as Inventory });
const cluster = (vars: Record<string, Record<string, unknown>> = {}) =>
  inventoryOf([
    { name: 'cp1', roles: ['control-plane', 'etcd'], vars: vars['cp1'] ?? {} },
    { name: 'w1', roles: ['worker'], vars: vars['w1'] ?? {} },
  ]);
type NodeState = { labels?: Record<string, string>; annotations?: Record<string, string>; taints?: { key: string; value?: string; effect: string }[] };
const facts = (nodes: Record<string, NodeState>) => {
  const parsed = parseNodeLabels(
    JSON.stringify({
      items: Object.entries(nodes).map(([name, n]) => ({
        metadata: { name, labels: n.labels ?? {}, annotations: n.annotations ?? {} },
        spec: { taints: n.taints },
      })),
    }),
    0,
  );
  if (!parsed.reachable) throw new Error('unreachable');
  return parsed;
};
const cpTaint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('node labels and taints', () => {
  it('nothing to do on a cluster without any (and no annotation written)', () => {
    expect(nodeMetadataChanges(wantedNodeMetadata(cluster()), facts({ cp1: { taints: [cpTaint] }, w1: {} }))).toEqual([]);
  });

  it("sets the labels and taints a host asks for, and records them as kcluster's", () => {
    const wanted = wantedNodeMetadata(
      cluster({
        w1: { nodeLabels: { gpu: 'true', 'topology.kubernetes.io/zone': 'a' }, nodeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
      }),
    );
    const [change] = nodeMetadataChanges(wanted, facts({ cp1: { taints: [cpTaint] }, w1: { labels: { gpu: 'true' } } }));
    expect(change).toEqual({
      node: 'w1',
      setLabels: [['topology.kubernetes.io/zone', 'a']],
      removeLabels: [],
      addTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      removeTaints: [],
      managed: '{"labels":["gpu","topology.kubernetes.io/zone"],"taints":["dedicated:NoSchedule"]}',
    });
    expect(describeNodeMetadataChange(change!)).toBe('w1: label topology.kubernetes.io/zone=a, taint dedicated=gpu:NoSchedule');
  });

  it('removes what kcluster set and the inventory no longer asks for, never a label or taint somebody else put there', () => {
    const managed = { [MANAGED_ANNOTATION]: '{"labels":["gpu","tier"],"taints":["dedicated:NoSchedule"]}' };
    const wanted = wantedNodeMetadata(cluster({ w1: { nodeLabels: { tier: 'web' } } }));
    const [change] = nodeMetadataChanges(
      wanted,
      facts({
        cp1: {},
        w1: {
          labels: { gpu: 'true', tier: 'web', team: 'a' },
          annotations: managed,
          taints: [
            { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
            { key: 'maintenance', effect: 'NoExecute' },
          ],
        },
      }),
    );
    expect(change).toMatchObject({
      node: 'w1',
      setLabels: [],
      removeLabels: ['gpu'],
      addTaints: [],
      removeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      managed: '{"labels":["tier"],"taints":[]}',
    });
  });

  it('replaces a taint whose value changed', () => {
    const managed = { [MANAGED_ANNOTATION]: '{"labels":[],"taints":["dedicated:NoSchedule"]}' };
    const wanted = wantedNodeMetadata(cluster({ w1: { nodeTaints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } }));
    const [change] = nodeMetadataChanges(
      wanted,
      facts({ cp1: {}, w1: { annotations: managed, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } }),
    );
    expect(change).toMatchObject({
      removeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      addTaints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }],
    });
    expect(change?.managed).toBeUndefined();
  });

  it('controlPlaneTaint: false takes the control-plane taint off; true puts it back; unset leaves it as registered', () => {
    expect(nodeMetadataChanges(wantedNodeMetadata(cluster({ cp1: { controlPlaneTaint: false } })), facts({ cp1: { taints: [cpTaint] }, w1: {} }))).toEqual([
      { node: 'cp1', setLabels: [], removeLabels: [], addTaints: [], removeTaints: [cpTaint] },
    ]);
    const [back] = nodeMetadataChanges(wantedNodeMetadata(cluster({ cp1: { controlPlaneTaint: true } })), facts({ cp1: {}, w1: {} }));
    expect(back).toMatchObject({ node: 'cp1', addTaints: [cpTaint], managed: '{"labels":[],"taints":["node-role.kubernetes.io/control-plane:NoSchedule"]}' });
    expect(nodeMetadataChanges(wantedNodeMetadata(cluster()), facts({ cp1: {}, w1: {} }))).toEqual([]);
  });

  it('a single-node cluster never gets the control-plane taint, even with controlPlaneTaint: true', () => {
    const single = inventoryOf([{ name: 'cp1', roles: ['control-plane', 'etcd'], vars: { controlPlaneTaint: true } }]);
    expect(nodeMetadataChanges(wantedNodeMetadata(single), facts({ cp1: {} }))).toEqual([]);
  });

  it('skips a Node that has not registered yet', () => {
    expect(nodeMetadataChanges(wantedNodeMetadata(cluster({ w1: { nodeLabels: { a: 'b' } } })), facts({ cp1: {} }))).toEqual([]);
  });
});
