// remove-node --unreachable against a fake API server (a real local HTTPS server with
// certificates from kcluster's own signer, holding one Node and the pods bound to it): the
// out-of-service taint added beside the Node's taints, a conflict made again, the wait for the
// pod GC controller, the force-deletion of what it left, and every pod named.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../../../src/kubernetes/kube/api-client.js';
import type { ApplyContext } from '../../../src/orchestrator/engine/types.js';
import { deleteNodeAndPodsTask } from '../../../roles/remove-node/delete-node-and-pods.js';
import { outOfServiceTask } from '../../../roles/remove-node/out-of-service.js';
import { startFakeApiServer, type FakeApiServer } from '../kube/support/fake-api-server.js';

interface FakePod {
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  spec: { tolerations?: object[] };
  /** The fake pod GC controller deletes it once the Node is tainted (false: the Node still looks Ready). */
  gcDeletes: boolean;
}

let server: FakeApiServer;
let node: { metadata: { resourceVersion: string }; spec: { taints: object[] } } | undefined;
let pods: FakePod[] = [];
let conflictsLeft = 0;
const patches: unknown[] = [];
const deletes: string[] = [];

const tainted = (): boolean => JSON.stringify(node?.spec.taints ?? []).includes('node.kubernetes.io/out-of-service');

beforeAll(async () => {
  server = await startFakeApiServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const notFound = () => json(404, { kind: 'Status', reason: 'NotFound', message: 'not found' });
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url === '/api/v1/nodes/cp1') {
        if (!node) return notFound();
        if (req.method === 'GET') return json(200, node);
        if (req.method === 'DELETE') {
          deletes.push(url);
          node = undefined;
          return json(200, {});
        }
        const patch = JSON.parse(text) as { metadata: { resourceVersion: string }; spec: { taints: object[] } };
        patches.push(patch);
        if (conflictsLeft > 0 || patch.metadata.resourceVersion !== node.metadata.resourceVersion) {
          conflictsLeft--;
          node = { metadata: { resourceVersion: `${Number(node.metadata.resourceVersion) + 1}` }, spec: node.spec };
          return json(409, { kind: 'Status', reason: 'Conflict', message: 'the object has been modified' });
        }
        node = { metadata: { resourceVersion: `${Number(node.metadata.resourceVersion) + 1}` }, spec: { taints: patch.spec.taints } };
        return json(200, node);
      }
      if (url === `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=cp1')}`) {
        const answer = pods.map(({ metadata, spec }) => ({ metadata, spec }));
        if (tainted()) pods = pods.filter((p) => !p.gcDeletes); // gone by the next list
        return json(200, { items: answer });
      }
      const pod = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)\?gracePeriodSeconds=0$/.exec(url);
      if (pod && req.method === 'DELETE') {
        deletes.push(url);
        const before = pods.length;
        pods = pods.filter((p) => !(p.metadata.namespace === pod[1] && p.metadata.name === pod[2]));
        return pods.length < before ? json(200, {}) : notFound();
      }
      return notFound();
    });
  });
}, 120_000);
afterAll(() => server.close());

beforeEach(() => {
  node = { metadata: { resourceVersion: '7' }, spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] } };
  pods = [
    { metadata: { name: 'web-1', namespace: 'default' }, spec: {}, gcDeletes: true },
    { metadata: { name: 'coredns-2', namespace: 'kube-system' }, spec: {}, gcDeletes: false },
    { metadata: { name: 'kube-proxy-x7', namespace: 'kube-system' }, spec: { tolerations: [{ operator: 'Exists' }] }, gcDeletes: false },
    {
      metadata: { name: 'kube-apiserver-cp1', namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'abc' } },
      spec: {},
      gcDeletes: false,
    },
  ];
  conflictsLeft = 0;
  patches.length = 0;
  deletes.length = 0;
});

const api = (): ApiClient => apiClient({ server: server.url, caCert: server.ca.cert, clientCert: server.admin.cert, clientKey: server.admin.key });
function applyContext(lines: string[]): ApplyContext {
  // progress: the lines every output shows (text, -o json, the debug log).
  return { signal: new AbortController().signal, progress: (line: string) => void lines.push(line), log: () => {} } as unknown as ApplyContext;
}

describe('remove-node --unreachable through the API (fake API server)', () => {
  it('taints beside the Node taints (a conflict made again), waits for the pod GC, force-deletes what it left, names each pod', async () => {
    conflictsLeft = 1;
    const lines: string[] = [];
    const task = outOfServiceTask('cp1', api, 1500);
    await task.apply({ kind: 'run', summary: '', payload: { taint: true, pods: ['default/web-1', 'kube-system/coredns-2'] } }, applyContext(lines));
    expect(patches).toHaveLength(2);
    expect(patches[1]).toEqual({
      metadata: { resourceVersion: '8' },
      spec: {
        taints: [
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
          { key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' },
        ],
      },
    });
    // The mirror pod and the pod that tolerates every taint stay for the Node's deletion.
    expect(deletes).toEqual(['/api/v1/namespaces/kube-system/pods/coredns-2?gracePeriodSeconds=0']);
    expect(lines).toEqual([
      'force-deleted by the pod GC controller (out-of-service taint): default/web-1',
      'force-deleted by kcluster after 1.5 s: kube-system/coredns-2',
    ]);
    expect(pods.map((p) => p.metadata.name)).toEqual(['kube-proxy-x7', 'kube-apiserver-cp1']);
  });

  it('a tainted Node whose pods the pod GC took: no patch, no force-deletion by kcluster', async () => {
    node = { metadata: { resourceVersion: '9' }, spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] } };
    pods = pods.filter((p) => p.gcDeletes);
    const lines: string[] = [];
    await outOfServiceTask('cp1', api, 1500).apply({ kind: 'run', summary: '', payload: { taint: false, pods: ['default/web-1'] } }, applyContext(lines));
    expect(patches).toEqual([]);
    expect(deletes).toEqual([]);
    expect(lines).toEqual(['force-deleted by the pod GC controller (out-of-service taint): default/web-1']);
  });

  it('deletes the Node, then force-deletes the pods still bound to it (mirror and DaemonSet pods)', async () => {
    pods = pods.filter((p) => p.metadata.name.startsWith('kube-'));
    const lines: string[] = [];
    await deleteNodeAndPodsTask('cp1', api).apply({ kind: 'delete', summary: '', payload: null }, applyContext(lines));
    expect(deletes).toEqual([
      '/api/v1/nodes/cp1',
      '/api/v1/namespaces/kube-system/pods/kube-proxy-x7?gracePeriodSeconds=0',
      '/api/v1/namespaces/kube-system/pods/kube-apiserver-cp1?gracePeriodSeconds=0',
    ]);
    expect(lines).toEqual([
      'force-deleted kube-system/kube-proxy-x7, left on the deleted Node cp1',
      'force-deleted kube-system/kube-apiserver-cp1, left on the deleted Node cp1',
    ]);
    expect(pods).toEqual([]);
  });
});
