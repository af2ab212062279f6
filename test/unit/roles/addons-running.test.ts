// The "addons running" check: DaemonSet and Deployment status in, ready or what is missing out.
import { describe, expect, it } from 'vitest';
import { daemonPodSelectors, parseDaemonPods, parseWorkloads, workloadState, type Workload } from '../../../src/kubernetes/facts/workloads-ready.js';
import { dnsWorkloads, nodeWorkloads, workloadsRunning } from '../../../roles/addons/running.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const ds: Workload = { kind: 'daemonset', name: 'kube-flannel', selector: 'k8s-app=flannel' };
const deploy: Workload = { kind: 'deployment', name: 'coredns', selector: 'k8s-app=kube-dns' };
const dsObject = (desired: number, ready: number, updated: number, generation = 1, observed = 1) => ({
  kind: 'DaemonSet',
  metadata: { name: 'kube-flannel', generation },
  status: { observedGeneration: observed, desiredNumberScheduled: desired, numberReady: ready, updatedNumberScheduled: updated },
});

// Lines as the fact's second kubectl prints them (tab-separated POD_COLUMNS).
const pod = (owner: string, hash: string, node: string, ready: string, deleted = '') => ['Pod', owner, hash, '', node, ready, deleted].join('\t');
const cr = (owner: string, hash: string, revision: number) => ['ControllerRevision', owner, hash, String(revision), '', '', ''].join('\t');

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
    const pods = [cr('kube-flannel', 'h1', 1), pod('kube-flannel', 'h1', 'cp1', 'True')].join('\n');
    const out = `ok\n${JSON.stringify({ items: [dsObject(1, 1, 1)] })}\n--- daemonset pods\n${pods}\n`;
    expect(parseWorkloads(out, [ds, deploy], ['cp1'])).toEqual({
      reachable: true,
      states: [
        { workload: ds, ready: true, detail: '1/1 Ready, 1/1 current' },
        { workload: deploy, ready: false, detail: 'not found' },
      ],
    });
    expect(parseWorkloads('ok\n--- daemonset pods\n', [ds], ['cp1'])).toEqual({
      reachable: true,
      states: [{ workload: ds, ready: false, detail: 'not found' }],
    });
    // One object asked for: kubectl prints the object itself, not a List.
    expect(parseWorkloads(`ok\n${JSON.stringify(dsObject(1, 1, 1))}\n--- daemonset pods\n${pods}\n`, [ds], ['cp1'])).toEqual({
      reachable: true,
      states: [{ workload: ds, ready: true, detail: '1/1 Ready, 1/1 current' }],
    });
    expect(parseWorkloads('unreachable\nThe connection to the server was refused\n', [ds], ['cp1'])).toEqual({
      reachable: false,
      detail: 'The connection to the server was refused',
    });
    expect(() => parseWorkloads('garbage', [ds], ['cp1'])).toThrow('unexpected output for the workload status');
  });
  it("parses the DaemonSets' pods: node, Ready, current (the newest ControllerRevision's hash), being deleted", () => {
    const text = [
      pod('kube-proxy', 'new', 'cp1', 'True'),
      cr('kube-proxy', 'old', 1),
      cr('kube-proxy', 'new', 2),
      pod('kube-proxy', 'old', 'w1', 'False'),
      pod('kube-proxy', 'new', 'gone', 'True', '2026-11-29T14:00:00Z'),
      pod('kube-flannel', 'f', 'cp1', ''),
    ].join('\n');
    expect(parseDaemonPods(text)).toEqual([
      { daemonSet: 'kube-proxy', node: 'cp1', ready: true, current: true, deleted: false },
      { daemonSet: 'kube-proxy', node: 'w1', ready: false, current: false, deleted: false },
      { daemonSet: 'kube-proxy', node: 'gone', ready: true, current: true, deleted: true },
      // no ControllerRevision listed for it: not current
      { daemonSet: 'kube-flannel', node: 'cp1', ready: false, current: false, deleted: false },
    ]);
  });
  it("judges a DaemonSet on the inventory's Nodes: a dead Node outside the inventory is named, not waited for", () => {
    const p = (node: string, ready: boolean, current = true, deleted = false) => ({ daemonSet: 'kube-flannel', node, ready, current, deleted });
    const inventory = ['cp1', 'w1'];
    // A restored snapshot's Node of a removed machine: NotReady for good, its pod too.
    expect(workloadState(ds, dsObject(3, 2, 3), { pods: [p('cp1', true), p('w1', true), p('gone', false)], inventoryNodes: inventory })).toEqual({
      workload: ds,
      ready: true,
      detail: '2/2 Ready, 2/2 current',
      outside: ['gone'],
    });
    // Its pod stuck in deletion (a rollout on a dead Node never finishes deleting it): the same.
    expect(
      workloadState(ds, dsObject(3, 3, 2), { pods: [p('cp1', true), p('w1', true), p('gone', true, false, true)], inventoryNodes: inventory }),
    ).toMatchObject({
      ready: true,
      outside: ['gone'],
    });
    // A Node outside the inventory that runs its pod well: nothing to say.
    expect(workloadState(ds, dsObject(3, 3, 3), { pods: [p('cp1', true), p('w1', true), p('extra', true)], inventoryNodes: inventory })).toEqual({
      workload: ds,
      ready: true,
      detail: '2/2 Ready, 2/2 current',
    });
    // An inventory Node whose pod is not Ready, runs an older revision, is being deleted, or has none yet: waited for.
    expect(workloadState(ds, dsObject(2, 1, 2), { pods: [p('cp1', true), p('w1', false)], inventoryNodes: inventory })).toMatchObject({
      ready: false,
      detail: '1/2 Ready, 2/2 current',
    });
    expect(workloadState(ds, dsObject(2, 2, 1), { pods: [p('cp1', true), p('w1', true, false)], inventoryNodes: inventory })).toMatchObject({
      ready: false,
      detail: '2/2 Ready, 1/2 current',
    });
    expect(workloadState(ds, dsObject(2, 2, 2), { pods: [p('cp1', true), p('w1', true, true, true)], inventoryNodes: inventory })).toMatchObject({
      ready: false,
      detail: '1/2 Ready, 1/2 current',
    });
    expect(workloadState(ds, dsObject(2, 1, 1), { pods: [p('cp1', true)], inventoryNodes: inventory })).toMatchObject({
      ready: false,
      detail: '1/2 Ready, 1/2 current',
    });
    // The same pod must be both Ready and current (an old Ready pod beside a new one not Ready yet).
    expect(workloadState(ds, dsObject(1, 1, 1), { pods: [p('cp1', true, false), p('cp1', false, true)], inventoryNodes: ['cp1'] })).toMatchObject({
      ready: false,
      detail: '1/1 Ready, 1/1 current',
    });
  });
  it('lists the DaemonSets pods with one selector per label key', () => {
    expect(
      daemonPodSelectors([
        ds,
        deploy,
        { kind: 'daemonset', name: 'kube-proxy', selector: 'k8s-app=kube-proxy' },
        { kind: 'daemonset', name: 'x', selector: 'app=x' },
      ]),
    ).toEqual(['k8s-app in (flannel,kube-proxy)', 'app in (x)']);
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
    const task = workloadsRunning('kube-proxy and the pod network running', nodeWorkloads(inv('none')), ['cp1']);
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
    // A Node outside the inventory: named in the reason (the cluster-members task warns of it).
    expect(
      task.plan({ workloads: { reachable: true, states: [{ workload: ds, ready: true, detail: '1/1 Ready, 1/1 current', outside: ['gone'] }] } }, ctx),
    ).toEqual({
      kind: 'none',
      reason: 'kube-flannel 1/1 Ready, 1/1 current (not waited for on gone: no inventory host)',
    });
  });
});
