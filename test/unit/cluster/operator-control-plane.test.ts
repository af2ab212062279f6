// The control plane that runs the once-per-cluster plays: the first that --limit allows and that
// answers (fake probe, named so: which hosts "answer" is the input here), said when it is not the first.
import { describe, expect, it } from 'vitest';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';
import { operatorControlPlane } from '../../../src/kubernetes/cluster/operator-control-plane.js';

const cps = ['cp1', 'cp2', 'cp3'].map((name) => ({ name }) as HostSettings);
const topology = { controlPlanes: cps, firstControlPlane: cps[0]! };
const fakeAnswering = (up: string[]) => async (hosts: readonly HostSettings[]) => hosts.find((h) => up.includes(h.name));

describe('the operator control plane', () => {
  it('is the first control plane when it answers, silently', async () => {
    const said: string[] = [];
    expect(await operatorControlPlane(topology, new Set(['cp1', 'cp2', 'cp3']), (l) => said.push(l), fakeAnswering(['cp1', 'cp2', 'cp3']))).toBe('cp1');
    expect(said).toEqual([]);
  });
  it('is the next that answers when the first is down, and says so', async () => {
    const said: string[] = [];
    expect(await operatorControlPlane(topology, new Set(['cp1', 'cp2', 'cp3']), (l) => said.push(l), fakeAnswering(['cp3']))).toBe('cp3');
    expect(said).toEqual([
      'the once-per-cluster steps (etcd snapshot, addons, their check, operator manifests) run on cp3: cp1 does not answer on its SSH port',
    ]);
  });
  it('follows --limit', async () => {
    const said: string[] = [];
    expect(await operatorControlPlane(topology, new Set(['cp2', 'cp3', 'w1']), (l) => said.push(l), fakeAnswering(['cp1', 'cp2', 'cp3']))).toBe('cp2');
    expect(said).toEqual(['the once-per-cluster steps (etcd snapshot, addons, their check, operator manifests) run on cp2: --limit leaves out cp1']);
    expect(await operatorControlPlane(topology, new Set(['w1']), () => undefined, fakeAnswering([]))).toBe('cp1');
  });
  it('is the first allowed one when none answers (the run then says it is unreachable)', async () => {
    expect(await operatorControlPlane(topology, new Set(['cp1', 'cp2']), () => undefined, fakeAnswering([]))).toBe('cp1');
  });
});
