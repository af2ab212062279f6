// The "addons running" check: DaemonSet and Deployment status in, ready or what is missing out.
import { describe, expect, it } from 'vitest';
import { parseWorkloads, workloadState, type Workload } from '../../../src/kubernetes/facts/workloads-ready.js';
import { dnsWorkloads, nodeWorkloads, workloadsRunning } from '../../../roles/addons/running.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const ds: Workload = { kind: 'daemonset', name: 'kube-flannel', selector: 'k8s-app=flannel' };
const deploy: Workload = { kind: 'deployment', name: 'coredns', selector: 'k8s-app=kube-dns' };
const dsObject = (desired: number, ready: number, updated: number, generation = 1, observed = 1) => ({
  kind: 'DaemonSet',
  metadata: { name: 'kube-flannel', generation },
  status: { observedGeneration: observed, desiredNumberScheduled: desired, numberReady: ready, updatedNumberScheduled: updated },
});

describe('workload readiness', () => {
  it('a DaemonSet is ready when every scheduled pod is Ready and current, and its controller saw the change', () => {
    expect(workloadState(ds, dsObject(3, 3, 3))).toEqual({ workload: ds, ready: true, detail: '3/3 Ready, 3/3 current' });
    expect(workloadState(ds, dsObject(3, 2, 3))).toMatchObject({ ready: false, detail: '2/3 Ready, 3/3 current' });
    expect(workloadState(ds, dsObject(3, 3, 1))).toMatchObject({ ready: false, detail: '3/3 Ready, 1/3 current' });
    expect(workloadState(ds, dsObject(3, 3, 3, 2, 1))).toMatchObject({ ready: false, detail: '3/3 Ready, 3/3 current, change not yet seen by its controller' });
    expect(workloadState(ds, dsObject(0, 0, 0))).toMatchObject({ ready: false });
    expect(workloadState(ds, undefined)).toEqual({ workload: ds, ready: false, detail: 'not found' });
  });
  it('a Deployment is ready when its replicas are Ready and current', () => {
    const object = {
      kind: 'Deployment',
      metadata: { name: 'coredns', generation: 4 },
      spec: { replicas: 2 },
      status: { observedGeneration: 4, readyReplicas: 1, updatedReplicas: 2 },
    };
    expect(workloadState(deploy, object)).toMatchObject({ ready: false, detail: '1/2 Ready, 2/2 current' });
    expect(workloadState(deploy, { ...object, status: { ...object.status, readyReplicas: 2 } }).ready).toBe(true);
  });
  it('parses the kubectl output: a list, an empty answer (nothing found), an unreachable API', () => {
    const out = `ok\n${JSON.stringify({ items: [dsObject(1, 1, 1)] })}\n`;
    expect(parseWorkloads(out, [ds, deploy])).toEqual({
      reachable: true,
      states: [
        { workload: ds, ready: true, detail: '1/1 Ready, 1/1 current' },
        { workload: deploy, ready: false, detail: 'not found' },
      ],
    });
    expect(parseWorkloads('ok\n', [ds])).toEqual({ reachable: true, states: [{ workload: ds, ready: false, detail: 'not found' }] });
    // One object asked for: kubectl prints the object itself, not a List.
    expect(parseWorkloads(`ok\n${JSON.stringify(dsObject(2, 2, 2))}\n`, [ds])).toEqual({
      reachable: true,
      states: [{ workload: ds, ready: true, detail: '2/2 Ready, 2/2 current' }],
    });
    expect(parseWorkloads('unreachable\nThe connection to the server was refused\n', [ds])).toEqual({
      reachable: false,
      detail: 'The connection to the server was refused',
    });
    expect(() => parseWorkloads('garbage', [ds])).toThrow('unexpected output for the workload status');
  });
  it('checks kube-proxy, flannel and the NetworkPolicy agent on the nodes, then CoreDNS, with flannel; without a CNI of ours no flannel nor CoreDNS; plans a wait until they run', () => {
    const inv = (cni: string) => {
      const r = parseInventory(`ssh: {agent: true}\ncluster: {cni: ${cni}}\nhosts: [{name: cp1, address: 10.0.0.1, roles: [control-plane]}]\n`, '/x.yaml', {
        env: {},
      });
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return { inventory: r.inventory };
    };
    const all = (i: ReturnType<typeof inv>) => [...nodeWorkloads(i), ...dnsWorkloads(i)].map((w) => w.name);
    expect(all(inv('flannel'))).toEqual(['kube-proxy', 'kube-flannel', 'kube-network-policies', 'coredns']);
    expect(all(inv('none'))).toEqual(['kube-proxy', 'kube-network-policies']);
    expect(nodeWorkloads(inv('flannel')).map((w) => w.name)).toEqual(['kube-proxy', 'kube-flannel', 'kube-network-policies']);
    expect(dnsWorkloads(inv('flannel')).map((w) => w.name)).toEqual(['coredns']);
    expect(dnsWorkloads(inv('none'))).toEqual([]);
    const task = workloadsRunning('kube-proxy and the pod network running', nodeWorkloads(inv('none')));
    const ctx = {} as never;
    expect(task.plan({ workloads: { reachable: true, states: [{ workload: ds, ready: false, detail: '0/1 Ready, 1/1 current' }] } }, ctx)).toEqual({
      kind: 'wait',
      summary: 'wait for kube-flannel 0/1 Ready, 1/1 current',
      payload: null,
    });
    expect(task.plan({ workloads: { reachable: true, states: [{ workload: ds, ready: true, detail: '1/1 Ready, 1/1 current' }] } }, ctx)).toEqual({
      kind: 'none',
      reason: 'kube-flannel 1/1 Ready, 1/1 current',
    });
  });
});
