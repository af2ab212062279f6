// The invariants' parsers: etcdctl's member list, Node readiness, a Deployment's availability.
import { describe, expect, it } from 'vitest';
import { deploymentAvailable, nodeReadiness, parseEtcdMemberList, podPhase, podsOnMissingNodes, setDifference } from '../../soak/cluster-readouts.js';

describe('parseEtcdMemberList', () => {
  it('reads name, started and learner from each line', () => {
    const out = `8e9e05c52164694d, started, kcsoak1, https://10.231.20.11:2380, https://10.231.20.11:2379, false
91bc3c398fb3c146, unstarted, , https://10.231.20.13:2380, , true
`;
    expect(parseEtcdMemberList(out)).toEqual([
      { name: 'kcsoak1', started: true, learner: false },
      { name: '', started: false, learner: true },
    ]);
  });
});

describe('nodeReadiness', () => {
  it('says which Nodes have Ready True', () => {
    const json = JSON.stringify({
      items: [
        { metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
        { metadata: { name: 'b' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
        { metadata: { name: 'c' } },
      ],
    });
    expect([...nodeReadiness(json)]).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
    ]);
  });
});

describe('deploymentAvailable', () => {
  const deployment = (available: string, replicas: number, availableReplicas: number) =>
    JSON.stringify({ spec: { replicas }, status: { availableReplicas, conditions: [{ type: 'Available', status: available }] } });
  it('needs the Available condition and every replica available', () => {
    expect(deploymentAvailable(deployment('True', 2, 2))).toBe(true);
    expect(deploymentAvailable(deployment('True', 2, 1))).toBe(false);
    expect(deploymentAvailable(deployment('False', 2, 2))).toBe(false);
  });
});

describe('podPhase and setDifference', () => {
  it('reads a pod’s phase and names what is missing and extra', () => {
    expect(podPhase(JSON.stringify({ status: { phase: 'Running' } }))).toBe('Running');
    expect(setDifference(['a', 'b'], ['b', 'c'])).toBe('missing a; extra c');
    expect(setDifference(['a'], ['a'])).toBe('');
  });
});

describe('podsOnMissingNodes', () => {
  it('names each pod bound to a node that is gone, and no pod that is unscheduled or on a Node that exists', () => {
    const pods = JSON.stringify({
      items: [
        { metadata: { namespace: 'default', name: 'web-1' }, spec: { nodeName: 'kcsoak1' } },
        { metadata: { namespace: 'kube-system', name: 'kube-apiserver-kcsoak2' }, spec: { nodeName: 'kcsoak2' } },
        { metadata: { namespace: 'default', name: 'pending' }, spec: {} },
      ],
    });
    expect(podsOnMissingNodes(pods, ['kcsoak1', 'kcsoak3'])).toEqual(['kube-system/kube-apiserver-kcsoak2 on kcsoak2']);
    expect(podsOnMissingNodes(pods, ['kcsoak1', 'kcsoak2'])).toEqual([]);
  });
});
