// The control plane's "last good manifests kept" task on a running cluster: it copies the
// manifests that run before any of them changes, and has nothing to keep on a control plane
// that joins (no manifest yet: they are kept once its wait succeeds).
import { describe, expect, it } from 'vitest';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';
import { lastGoodManifestsKeptTask } from '../../../roles/control-plane/wait.js';
import { lastGoodManifests } from '../../../src/kubernetes/cluster/last-good-manifests.js';

const all = ['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml'];
const plan = (present: string[], kept: string[]) => lastGoodManifestsKeptTask().plan({ kept: { present, kept } }, {} as HostContext);

describe('last good manifests kept', () => {
  it('keeps the manifests on disk that have no copy', () => {
    expect(plan(all, [])).toMatchObject({
      kind: 'create',
      summary: 'keep the manifests that run now in /etc/kubernetes/manifests-last-good, to put back if a change keeps a component from starting',
    });
    expect(plan(all, ['etcd.yaml'])).toMatchObject({ kind: 'create' });
  });
  it('has nothing to do when every manifest has its copy, or there is no manifest yet (a joining control plane)', () => {
    expect(plan(all, all)).toEqual({ kind: 'none', reason: '/etc/kubernetes/manifests-last-good holds the manifests that last ran' });
    expect(plan([], [])).toEqual({ kind: 'none', reason: 'no control-plane manifest yet: kept once the control plane is ready' });
  });
  it('reads which manifests are on disk and which are kept', () => {
    expect(lastGoodManifests.parse('present etcd.yaml\nkept etcd.yaml\npresent kube-apiserver.yaml\npresent other.yaml\n', 0)).toEqual({
      present: ['etcd.yaml', 'kube-apiserver.yaml'],
      kept: ['etcd.yaml'],
    });
  });
});
