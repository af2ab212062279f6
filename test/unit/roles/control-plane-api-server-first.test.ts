// kubeadm's order on a running cluster: the control-plane role writes the API server's
// manifest, waits until etcd and the API server run their current manifests, and only then
// writes the controller-manager's and the scheduler's. The wait in between looks at those two
// components only; the last wait at all four. A fresh install has no wait in between.
import { describe, expect, it } from 'vitest';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';
import type { StaticPods } from '../../../src/kubernetes/facts/static-pods.js';
import { controlPlaneRole } from '../../../roles/control-plane/index.js';
import { waitForApiServerFirst, waitForControlPlane } from '../../../roles/control-plane/wait.js';

const inputs = { pki: {}, inventory: { cluster: {} }, topology: { controlPlanes: [], apiPort: 6443 } } as unknown as ClusterInputs;
const host = {} as HostContext;
const ready = { ready: true, detail: '' };
/** What the waits' plan reads (the optional static-pods fact present): one type for both waits. */
type WaitFacts = Parameters<ReturnType<typeof waitForControlPlane>['plan']>[0];
const facts = (api: { ready: boolean; detail: string }, pods: StaticPods) => ({ api, pods }) as unknown as WaitFacts;
const pods = (lagging: Record<string, 'old' | 'not-ready'>): StaticPods => ({
  detail: '',
  components: ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((component) => ({
    component,
    want: 'new',
    have: lagging[component] === 'old' ? 'old' : 'new',
    ready: lagging[component] !== 'not-ready',
  })),
});

describe('the control plane on a running cluster: the API server before the controller-manager and scheduler', () => {
  it('orders the tasks: API server manifest, the wait for it, then the other two manifests, then the last wait', () => {
    const names = controlPlaneRole(inputs, { running: true }).tasks.map((t) => t.name);
    const at = (pattern: RegExp) => names.findIndex((n) => pattern.test(n));
    const apiServer = at(/kube-apiserver\.yaml/);
    const between = names.indexOf('API server current, before the controller-manager and scheduler');
    expect(apiServer).toBeGreaterThan(-1);
    expect(between).toBe(apiServer + 1);
    expect(at(/kube-controller-manager\.yaml/)).toBe(between + 1);
    expect(at(/kube-scheduler\.yaml/)).toBe(between + 2);
    expect(names.indexOf('API server ready, static pods current')).toBe(between + 3);
  });
  it('has no wait in between on a fresh install (there is no previous pod to replace)', () => {
    const names = controlPlaneRole(inputs, { running: false }).tasks.map((t) => t.name);
    expect(names).not.toContain('API server current, before the controller-manager and scheduler');
    expect(names).toContain('API server ready');
  });
  it('the wait in between waits for etcd and the API server only', () => {
    const plan = (p: StaticPods, api = ready) => waitForApiServerFirst().plan(facts(api, p), host);
    expect(plan(pods({ 'kube-controller-manager': 'old', 'kube-scheduler': 'not-ready' }))).toMatchObject({ kind: 'none' });
    expect(plan(pods({ 'kube-apiserver': 'old', 'kube-scheduler': 'old' }))).toEqual({
      kind: 'wait',
      summary: 'wait for kube-apiserver (the previous pod still runs)',
      payload: { detail: 'kube-apiserver (the previous pod still runs)' },
    });
    expect(plan(pods({ etcd: 'not-ready' }), { ready: false, detail: 'connection refused' })).toMatchObject({
      kind: 'wait',
      summary: 'wait for /readyz (connection refused), etcd (not Ready)',
    });
  });
  it('the last wait still waits for all four', () => {
    const plan = waitForControlPlane(true).plan(facts(ready, pods({ 'kube-scheduler': 'old' })), host);
    expect(plan).toMatchObject({ kind: 'wait', summary: 'wait for kube-scheduler (the previous pod still runs)' });
  });
});
