// remove-node --unreachable, the out-of-service taint of a dead node and the force-deletion of
// its pods, as tables: recorded kubectl output in, what the pods do and each step's Change out.
// The API calls are in remove-node-out-of-service-api.test.ts (fake API server).
import { describe, expect, it } from 'vitest';
import { deleteNodeAndPodsPlan } from '../../../roles/remove-node/delete-node-and-pods.js';
import { outOfServicePlan } from '../../../roles/remove-node/out-of-service.js';
import { parseOutOfServiceState, type OutOfServiceState } from '../../../roles/remove-node/out-of-service-state.js';
import { OUT_OF_SERVICE_TAINT, parsePodList } from '../../../roles/remove-node/pods-on-node.js';
import { toleratesForGood, toleratesTaint } from '../../../roles/remove-node/tolerates.js';

const pod = (name: string, more: { annotations?: Record<string, string>; tolerations?: object[]; phase?: string } = {}) => ({
  metadata: { name, namespace: more.annotations ? 'kube-system' : 'default', ...(more.annotations ? { annotations: more.annotations } : {}) },
  spec: { tolerations: more.tolerations ?? [] },
  status: { phase: more.phase ?? 'Running' },
});
const mirror = pod('kube-apiserver-cp1', { annotations: { 'kubernetes.io/config.mirror': 'abc' }, tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] });
const proxy = pod('kube-proxy-x7', { tolerations: [{ operator: 'Exists' }] });
const web = pod('web-1', { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }] });
const list = (...items: object[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const state = (head: string, ...items: object[]): OutOfServiceState =>
  parseOutOfServiceState(`${head}\n--- kcluster pods on the node ---\n${list(...items)}\n`);

describe('which pods the out-of-service taint takes off a node', () => {
  it('matches tolerations the way Kubernetes does; one with tolerationSeconds only delays the eviction', () => {
    expect(toleratesTaint({ operator: 'Exists' }, OUT_OF_SERVICE_TAINT)).toBe(true);
    expect(toleratesTaint({ operator: 'Exists', effect: 'NoExecute' }, OUT_OF_SERVICE_TAINT)).toBe(true);
    expect(toleratesTaint({ operator: 'Exists', effect: 'NoSchedule' }, OUT_OF_SERVICE_TAINT)).toBe(false);
    expect(toleratesTaint({ key: 'node.kubernetes.io/out-of-service', operator: 'Equal', value: 'nodeshutdown' }, OUT_OF_SERVICE_TAINT)).toBe(true);
    expect(toleratesTaint({ key: 'node.kubernetes.io/out-of-service', value: 'other' }, OUT_OF_SERVICE_TAINT)).toBe(false);
    expect(toleratesTaint({ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }, OUT_OF_SERVICE_TAINT)).toBe(false);
    expect(toleratesForGood([{ operator: 'Exists', tolerationSeconds: 30 }], OUT_OF_SERVICE_TAINT)).toBe(false);
  });

  it('mirror pods and pods that tolerate the taint stay (they go with the Node); the others, finished ones too, are cleared', () => {
    expect(parsePodList(list(mirror, proxy, web, pod('job-1', { phase: 'Succeeded' })))).toEqual({
      toClear: ['default/web-1', 'default/job-1'],
      stay: ['kube-system/kube-apiserver-cp1', 'default/kube-proxy-x7'],
    });
    // A mirror pod stays by its annotation, whatever its tolerations say.
    expect(parsePodList(list({ ...mirror, spec: {} })).stay).toEqual(['kube-system/kube-apiserver-cp1']);
    expect(() => parsePodList('error: the server has asked for the client to provide credentials')).toThrow(
      'could not read the pods bound to the node: error: the server has asked',
    );
  });

  it('reads the Node: absent, tainted or not (among other taints), with the pods bound to it either way', () => {
    expect(state('node absent', mirror)).toEqual({ nodeExists: false, tainted: false, pods: { toClear: [], stay: ['kube-system/kube-apiserver-cp1'] } });
    expect(state('node taints:node.kubernetes.io/unreachable node.kubernetes.io/out-of-service', web)).toMatchObject({ nodeExists: true, tainted: true });
    expect(state('node taints:node.kubernetes.io/unreachable', web)).toMatchObject({ nodeExists: true, tainted: false });
    expect(state('node taints:')).toEqual({ nodeExists: true, tainted: false, pods: { toClear: [], stay: [] } });
    expect(() => parseOutOfServiceState('error: You must be logged in to the server (Unauthorized)\n')).toThrow(
      'could not read the Node: error: You must be logged in',
    );
  });
});

describe('take a dead node out of service (recorded facts -> changes)', () => {
  it('an untainted Node: taint it, naming the pods to force-delete (what --check shows)', () => {
    expect(outOfServicePlan('cp1', state('node taints:node.kubernetes.io/unreachable', mirror, proxy, web))).toEqual({
      kind: 'run',
      summary:
        'taint cp1 node.kubernetes.io/out-of-service=nodeshutdown:NoExecute: force-delete default/web-1 ' +
        "(2 more go with the Node: static pods' mirrors and pods that tolerate the taint) " +
        '(the pod GC controller does once the Node is NotReady, kcluster after 10 s); its volumes are detached',
      payload: { taint: true, pods: ['default/web-1'] },
    });
    expect(outOfServicePlan('w1', state('node taints:'))).toMatchObject({ kind: 'run', payload: { taint: true, pods: [] } });
  });

  it('a tainted Node with pods left (a rerun after an interruption): force-delete them, no second taint', () => {
    expect(outOfServicePlan('cp1', state('node taints:node.kubernetes.io/out-of-service', web))).toMatchObject({
      kind: 'run',
      summary: expect.stringMatching(/^cp1 is tainted out of service: force-delete default\/web-1 \(the pod GC/),
      payload: { taint: false, pods: ['default/web-1'] },
    });
  });

  it('nothing to do once tainted with only pods that go with the Node, or without a Node', () => {
    expect(outOfServicePlan('cp1', state('node taints:node.kubernetes.io/out-of-service', mirror, proxy))).toEqual({
      kind: 'none',
      reason: "cp1 is out of service and has no pod left to force-delete (2 more go with the Node: static pods' mirrors and pods that tolerate the taint)",
    });
    expect(outOfServicePlan('cp1', state('node absent', web))).toEqual({ kind: 'none', reason: 'no Node cp1 in the cluster' });
  });
});

describe('delete a dead node (recorded facts -> changes)', () => {
  it('deletes the Node, then force-deletes every pod still bound to it, by name', () => {
    expect(deleteNodeAndPodsPlan('cp1', state('node taints:node.kubernetes.io/out-of-service', mirror, proxy))).toEqual({
      kind: 'delete',
      summary: 'delete the Node cp1, then force-delete the pods still bound to it: kube-system/kube-apiserver-cp1, default/kube-proxy-x7',
      payload: null,
    });
    expect(deleteNodeAndPodsPlan('w1', state('node taints:'))).toEqual({ kind: 'delete', summary: 'delete the Node w1', payload: null });
  });

  it('a rerun after the Node went: the pods left; nothing once neither is there', () => {
    expect(deleteNodeAndPodsPlan('cp1', state('node absent', mirror))).toEqual({
      kind: 'delete',
      summary: 'no Node cp1 any more; force-delete the pods still bound to it: kube-system/kube-apiserver-cp1',
      payload: null,
    });
    expect(deleteNodeAndPodsPlan('cp1', state('node absent'))).toEqual({ kind: 'none', reason: 'no Node cp1 in the cluster, no pod bound to it' });
  });
});
