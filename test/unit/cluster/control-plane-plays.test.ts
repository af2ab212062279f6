// The control-plane plays of apply on a running cluster: which hosts join (one at a time, after
// a snapshot) and which converge as members; an etcd membership that could not be seen (no
// etcd pod listed yet) makes no host "joining".
import { describe, expect, it } from 'vitest';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';
import { controlPlanePlays } from '../../../playbooks/cluster.js';

const cp = (name: string, ip: string) => ({ name, ssh: { address: ip } }) as HostSettings;
// What building the roles reads (contents are read per host, later).
const inputs = {
  pki: {},
  inventory: { stateDir: '/state', cluster: {} },
  topology: { controlPlanes: [cp('cp1', '10.0.0.1'), cp('cp2', '10.0.0.2'), cp('cp3', '10.0.0.3')], apiPort: 6443 },
} as unknown as ClusterInputs;
const shape = (members: readonly string[] | undefined) =>
  controlPlanePlays(inputs, { running: true, ...(members !== undefined ? { etcdMembers: members } : {}) }).map((p) => [p.name, p.hosts, p.serial]);
/** Per play, whether its roles take an etcd snapshot before their first change. */
const snapshots = (members: readonly string[]) =>
  controlPlanePlays(inputs, { running: true, etcdMembers: members }).map((p) => p.roles.map((r) => r.beforeFirstChange?.name ?? '-'));

describe('control-plane plays on a running cluster', () => {
  it('converge every control plane one at a time when all are etcd members', () => {
    expect(shape(['cp1', 'cp2', 'cp3'])).toEqual([['control plane', 'control-plane', 1]]);
  });
  it('snapshot etcd on a member, join the new control planes one at a time, then converge the members', () => {
    expect(shape(['cp1'])).toEqual([
      ['etcd snapshot', ['cp1'], undefined],
      ['control planes joining', ['cp2', 'cp3'], 1],
      ['control plane', ['cp1'], 1],
    ]);
  });
  it('take one etcd snapshot per run: before a join (its own play), else before the first control-plane change', () => {
    expect(snapshots(['cp1', 'cp2', 'cp3'])).toEqual([['etcd snapshot before the first control-plane change']]);
    expect(snapshots(['cp1'])).toEqual([['etcd-backup'].map(() => '-'), ['-'], ['-']]);
    expect(controlPlanePlays(inputs, { running: false }).flatMap((p) => p.roles.map((r) => r.beforeFirstChange))).toEqual([undefined]);
  });
  it('take an unseen membership (no etcd pod listed) as "every control plane a member": no snapshot, nobody joining', () => {
    expect(shape([])).toEqual([['control plane', 'control-plane', 1]]);
    expect(shape(undefined)).toEqual([['control plane', 'control-plane', 1]]);
  });
  it('start every control plane together on a fresh install', () => {
    expect(controlPlanePlays(inputs, { running: false }).map((p) => [p.name, p.hosts, p.serial])).toEqual([['control plane', 'control-plane', undefined]]);
  });
});
