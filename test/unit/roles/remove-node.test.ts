// The remove-node roles as tables: recorded etcd and Node facts (parsed from what etcdctl and
// kubectl print) in, each step's Change out. No host: the real path is test/e2e/day2.test.ts.
import { describe, expect, it } from 'vitest';
import { parseEtcdMembership } from '../../../src/kubernetes/etcd/etcd-membership.js';
import type { EtcdMember } from '../../../src/kubernetes/etcd/etcd-members.js';
import { parseNodeDrainState, type NodeDrainState } from '../../../src/kubernetes/facts/node-drain-state.js';
import type { ApiClient } from '../../../src/kubernetes/kube/api-client.js';
import { deleteNodeRole, takeOutRole, type RemoveNodeTarget } from '../../../roles/remove-node/index.js';
import { parseOutOfServiceState } from '../../../roles/remove-node/out-of-service-state.js';
import { hostContext } from '../tasks/support/host-context.js';

const ctx = hostContext('node-1');
const noApi = (): ApiClient => {
  throw new Error('plans never call the API');
};
const target = (node: string, controlPlane: boolean, more: Partial<RemoveNodeTarget> = {}): RemoveNodeTarget => ({
  node,
  controlPlane,
  drainTimeoutMs: 300_000,
  api: noApi,
  ...more,
});

const memberList = `8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false
91bc3c398fb3c146, started, cp2, https://10.0.0.2:2380, https://10.0.0.2:2379, false
fd422379fda50e48, started, cp3, https://10.0.0.3:2380, https://10.0.0.3:2379, false
`;
const health = (down: string[] = []) =>
  JSON.stringify(['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((a) => ({ endpoint: `https://${a}:2379`, health: !down.includes(a) })));
const membership = (down: string[] = []): EtcdMember[] => parseEtcdMembership(`${memberList}--- kcluster etcd health ---\n${health(down)}\n`, 0);

const pods = (items: object[]) => JSON.stringify({ items });
const pod = (name: string, extra: object = {}) => ({ metadata: { name, namespace: 'default', ...extra }, status: { phase: 'Running' } });
const nodeState = (head: string, items: object[] = []): NodeDrainState =>
  parseNodeDrainState(head === 'node absent' ? 'node absent\n' : `${head}\n${pods(items)}\n`);

function plan(role: ReturnType<typeof takeOutRole>, index: number, facts: Record<string, unknown>) {
  const task = role.tasks[index]!;
  return task.plan(facts as never, ctx);
}

describe('remove-node facts', () => {
  it('etcd membership: members with their health; a failed member list is an error', () => {
    expect(membership(['10.0.0.3']).map((m) => [m.id, m.name, m.healthy])).toEqual([
      ['8e9e05c52164694d', 'cp1', true],
      ['91bc3c398fb3c146', 'cp2', true],
      ['fd422379fda50e48', 'cp3', false],
    ]);
    expect(() => parseEtcdMembership('Error: context deadline exceeded\n', 1)).toThrow(
      'etcdctl member list failed on this control plane: Error: context deadline exceeded',
    );
  });

  it('Node state: absent, cordoned, and only the pods a drain evicts (not DaemonSet, mirror or finished pods)', () => {
    expect(nodeState('node absent')).toEqual({ exists: false });
    const state = nodeState('node true', [
      pod('web'),
      pod('agent', { ownerReferences: [{ kind: 'DaemonSet' }] }),
      pod('kube-apiserver-cp1', { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
      { ...pod('job'), status: { phase: 'Succeeded' } },
    ]);
    expect(state).toEqual({ exists: true, unschedulable: true, evictable: ['default/web'] });
    expect(nodeState('node false')).toEqual({ exists: true, unschedulable: false, evictable: [] });
    expect(() => parseNodeDrainState('error: You must be logged in to the server (Unauthorized)\n')).toThrow(
      'could not read the Node: error: You must be logged in',
    );
  });
});

describe('remove-node roles (recorded facts -> changes)', () => {
  const cp = takeOutRole(target('cp3', true));
  const worker = takeOutRole(target('w1', false));

  it('a worker: only the drain; a control plane: quorum check, drain, member removal', () => {
    expect(worker.tasks.map((t) => t.name)).toEqual(['cordon and drain w1']);
    expect(cp.tasks.map((t) => t.name)).toEqual(['etcd keeps its quorum without cp3', 'cordon and drain cp3', 'remove the etcd member of cp3']);
  });

  it('a node whose host is gone: no drain, but the out-of-service taint, after the etcd member of a control plane', () => {
    expect(takeOutRole(target('cp3', true, { unreachable: true })).tasks.map((t) => t.name)).toEqual([
      'etcd keeps its quorum without cp3',
      'remove the etcd member of cp3',
      'take cp3 out of service',
    ]);
    expect(takeOutRole(target('w1', false, { unreachable: true })).tasks.map((t) => t.name)).toEqual(['take w1 out of service']);
  });

  it('refuses to leave an even number of members unless told, and says why; a member that does not answer can always go', () => {
    expect(() => plan(cp, 0, { members: membership() })).toThrow(
      'remove-node cp3 refused: etcd would be left with 2 members, an even number: they need 2 for quorum, so they survive no more failures than 1 would (none). ' +
        'Add a control plane first (kcluster apply with it in the inventory), or pass --allow-even to remove cp3 anyway (to replace it right after, for example); nothing was changed',
    );
    expect(plan(takeOutRole(target('cp3', true, { allowEven: true })), 0, { members: membership() })).toEqual({
      kind: 'none',
      reason: '2 of 2 remaining members healthy',
    });
    expect(plan(cp, 0, { members: membership(['10.0.0.3']) })).toEqual({ kind: 'none', reason: '2 of 2 remaining members healthy' });
  });

  it('the quorum check passes with a healthy majority left, and refuses (before any change) without one', () => {
    expect(plan(takeOutRole(target('cp3', true, { allowEven: true })), 0, { members: membership() })).toEqual({
      kind: 'none',
      reason: '2 of 2 remaining members healthy',
    });
    expect(() => plan(cp, 0, { members: membership(['10.0.0.2']) })).toThrow(
      'remove-node cp3 refused: after removing cp3, 1 of 2 remaining etcd members would be healthy, and quorum needs 2 (unhealthy: cp2): repair them first; nothing was changed',
    );
  });

  it('drains a schedulable node or one with pods left; nothing to do once cordoned and empty, or without a Node', () => {
    expect(plan(worker, 0, { state: nodeState('node false', [pod('web')]) })).toMatchObject({
      kind: 'run',
      summary: 'cordon and drain w1 (1 pods to evict: default/web; PodDisruptionBudgets respected, 300 s at most)',
    });
    expect(plan(worker, 0, { state: nodeState('node false') })).toMatchObject({ kind: 'run', summary: expect.stringContaining('no pod to evict') });
    expect(plan(worker, 0, { state: nodeState('node true') })).toEqual({ kind: 'none', reason: 'w1 is cordoned and has no pod to evict' });
    expect(plan(worker, 0, { state: nodeState('node absent') })).toEqual({ kind: 'none', reason: 'no Node w1 in the cluster: nothing to drain' });
  });

  it('removes the member by its hex id while it is listed, nothing once it is gone', () => {
    expect(plan(cp, 2, { members: membership() })).toEqual({
      kind: 'delete',
      summary: 'remove etcd member fd422379fda50e48 (cp3); 2 members left',
      payload: 'fd422379fda50e48',
    });
    const without = parseEtcdMembership(`${memberList.split('\n').slice(0, 2).join('\n')}\n--- kcluster etcd health ---\n${health()}\n`, 0);
    expect(plan(cp, 2, { members: without })).toEqual({ kind: 'none', reason: 'cp3 is not an etcd member' });
  });

  it('deletes the Node while it exists, then the pods the reset left bound to it; nothing once both are gone', () => {
    const del = deleteNodeRole(target('w1', false));
    const state = (head: string, ...names: string[]) =>
      parseOutOfServiceState(
        `${head}\n--- kcluster pods on the node ---\n${JSON.stringify({ items: names.map((name) => ({ metadata: { name, namespace: 'kube-system' }, spec: {} })) })}\n`,
      );
    expect(plan(del, 0, { state: state('node taints:') })).toEqual({ kind: 'delete', summary: 'delete the Node w1', payload: null });
    // Found by the soak: the reset cut a pod's grace period short and stopped the DaemonSets' pods; they stayed listed on the deleted Node.
    expect(plan(del, 0, { state: state('node taints:', 'kube-proxy-x7', 'web-1') })).toEqual({
      kind: 'delete',
      summary: 'delete the Node w1, then force-delete the pods still bound to it: kube-system/kube-proxy-x7, kube-system/web-1',
      payload: null,
    });
    expect(plan(del, 0, { state: state('node absent', 'kube-proxy-x7') })).toMatchObject({
      kind: 'delete',
      summary: 'no Node w1 any more; force-delete the pods still bound to it: kube-system/kube-proxy-x7',
    });
    expect(plan(del, 0, { state: state('node absent') })).toEqual({ kind: 'none', reason: 'no Node w1 in the cluster, no pod bound to it' });
  });
});
