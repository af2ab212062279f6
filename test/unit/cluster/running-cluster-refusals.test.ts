// What apply refuses to do to a running cluster, from what the cluster says about itself.
import { describe, expect, it } from 'vitest';
import { apiServersToAsk, etcdMembersOf, type RunningCluster } from '../../../src/kubernetes/cluster/running-cluster.js';
import { newControlPlaneRefusal, versionChangeRefusal } from '../../../src/kubernetes/cluster/running-cluster-refusals.js';

const running = (over: Partial<RunningCluster> = {}): RunningCluster => ({
  gitVersion: 'v1.35.8',
  kubelets: new Map([
    ['cp1', 'v1.35.8'],
    ['w1', 'v1.35.8'],
  ]),
  etcdMembers: ['cp1', 'cp2', 'cp3'],
  ...over,
});

describe('the etcd members of a running cluster', () => {
  it('are the nodes its etcd pods run on, once each, whatever their start flags say', () => {
    const pods = { items: [{ spec: { nodeName: 'cp2' } }, { spec: { nodeName: 'cp1' } }, { spec: { nodeName: 'cp2' } }] };
    expect(etcdMembersOf(pods)).toEqual(['cp1', 'cp2']);
  });
  it('include the Nodes labelled control-plane, whose etcd mirror pod may not exist yet', () => {
    const pods = { items: [{ spec: { nodeName: 'cp1' } }] };
    const nodes = {
      items: [
        { metadata: { name: 'cp3', labels: { 'node-role.kubernetes.io/control-plane': '' } } },
        { metadata: { name: 'w1', labels: { 'node-role.kubernetes.io/worker': '' } } },
        { metadata: { name: 'cp4' } },
      ],
    };
    expect(etcdMembersOf(pods, nodes)).toEqual(['cp1', 'cp3']);
  });
  it('are none when no etcd pod is visible or none is scheduled', () => {
    expect(etcdMembersOf({ items: [] })).toEqual([]);
    expect(etcdMembersOf({ items: [{ spec: {} }] })).toEqual([]);
  });
});

describe('commands other than apply on a running cluster', () => {
  it('refuse a new control plane, naming it, the members and that apply adds it', () => {
    const refusal = newControlPlaneRefusal(running(), ['cp1', 'cp2', 'cp3', 'cp4'], 'inv.yaml');
    expect(refusal).toBe(
      "inv.yaml: cp4 is a control plane in the inventory, but the running cluster's etcd members are cp1, cp2, cp3: this command does not add control planes. " +
        'Nothing was changed. Run kcluster apply -i inv.yaml first (it adds it to etcd one at a time), then this command again',
    );
    expect(newControlPlaneRefusal(running(), ['cp1', 'cp4', 'cp5'], 'inv.yaml')).toMatch(/^inv\.yaml: cp4, cp5 are control planes in the inventory/);
  });
  it('accepts the same control planes, fewer (remove-node took care of etcd), or an unknown etcd', () => {
    expect(newControlPlaneRefusal(running(), ['cp1', 'cp2', 'cp3'], 'inv.yaml')).toBeUndefined();
    expect(newControlPlaneRefusal(running(), ['cp1', 'cp2'], 'inv.yaml')).toBeUndefined();
    expect(newControlPlaneRefusal(running({ etcdMembers: [] }), ['cp9'], 'inv.yaml')).toBeUndefined();
  });
  it('refuses another version of the API server or of any kubelet, pointing at kcluster upgrade', () => {
    expect(versionChangeRefusal(running(), 'v1.35.8', 'inv.yaml')).toBeUndefined();
    expect(versionChangeRefusal(running({ gitVersion: 'v1.34.10' }), 'v1.35.8', 'inv.yaml')).toMatch(
      /^inv\.yaml: the cluster runs v1\.34\.10 but cluster\.kubernetesVersion is v1\.35\.8: .*run kcluster upgrade -i inv\.yaml/,
    );
    expect(versionChangeRefusal(running({ kubelets: new Map([['w1', 'v1.34.10']]) }), 'v1.35.8', 'inv.yaml')).toContain(
      'the cluster runs v1.35.8, kubelets w1 (v1.34.10)',
    );
  });
});

describe('where apply asks whether a cluster runs', () => {
  it('asks the admin endpoint first, then every control plane, each once', () => {
    const host = (address: string) => ({ ssh: { address } }) as unknown as Parameters<typeof apiServersToAsk>[0]['controlPlanes'][number];
    expect(
      apiServersToAsk({ adminServerUrl: 'https://10.0.0.1:6443', apiPort: 6443, controlPlanes: [host('10.0.0.1'), host('10.0.0.2'), host('10.0.0.3')] }),
    ).toEqual(['https://10.0.0.1:6443', 'https://10.0.0.2:6443', 'https://10.0.0.3:6443']);
    expect(apiServersToAsk({ adminServerUrl: 'https://lb.example:6443', apiPort: 6443, controlPlanes: [host('10.0.0.1')] })).toEqual([
      'https://lb.example:6443',
      'https://10.0.0.1:6443',
    ]);
  });
});
