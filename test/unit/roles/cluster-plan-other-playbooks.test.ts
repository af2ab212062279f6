// The other playbooks over the cluster's roles, planned in check mode on fresh hosts from
// recorded facts replayed by a fake connection (nothing runs): the upgrade's order (snapshot,
// control plane, then each worker drained before its kubelet), an etcd snapshot restore's steps,
// certs renew's order and waits.
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KUBERNETES_VERSION as K8S } from '../../../src/kubernetes/inventory/defaults.js';
import type { Scenario } from '../../support/plan-scenario.js';
import { planOverRecording } from '../../support/recorded-facts/plan-over-recording.js';
import { certsRenewVariant, restoreVariant, upgradeVariant } from '../../support/recorded-facts/plan-variants.js';

describe('the upgrade playbook (recorded facts, fake connection)', () => {
  let up: Scenario;
  beforeAll(async () => {
    up = await planOverRecording('empty-debian', upgradeVariant);
  }, 60_000);

  it("plans every node's images first, then the etcd snapshot on the first control plane, the control plane, then each worker drained before its kubelet changes", () => {
    expect(up.failures).toEqual([]);
    expect(up.exitCode).toBe(3);
    expect(up.tasks('kcrec1', 'etcd-backup')).toEqual(['etcd snapshot before the upgrade']);
    const index = (host: string, role: string) => up.planned.findIndex((p) => p.host === host && p.role === role);
    // Regression (issue 40): the addons roll kube-proxy on every node right after the control
    // planes, so every node holds the new images before the first control plane changes.
    for (const host of ['kcrec1', 'kcrec2', 'kcrec3']) {
      expect(index(host, 'images'), host).toBeGreaterThanOrEqual(0);
      expect(index(host, 'images'), host).toBeLessThan(index('kcrec1', 'etcd-backup'));
    }
    expect(up.planned.slice(0, index('kcrec1', 'etcd-backup')).every((p) => p.role === 'artifacts' || p.role === 'images' || p.role === 'preflight')).toBe(
      true,
    );
    expect(index('kcrec1', 'control-plane')).toBeGreaterThan(index('kcrec1', 'etcd-backup'));
    // Done only when every addon has rolled out on every node, after the last worker.
    expect(index('kcrec1', 'addons-running')).toBeGreaterThan(Math.max(index('kcrec2', 'kubelet'), index('kcrec3', 'kubelet')));
    expect(up.tasks('kcrec1', 'drain')).toEqual([]);
    for (const worker of ['kcrec2', 'kcrec3']) {
      expect(up.tasks(worker, 'drain')).toEqual(['cordon and drain']);
      expect(index(worker, 'drain')).toBeGreaterThan(index('kcrec1', 'control-plane'));
      expect(index(worker, 'drain')).toBeLessThan(index(worker, 'kubelet'));
    }
    // The recorded host has no manifest: nothing to keep yet (control-plane-last-good.test.ts plans a host that has them).
    expect(up.tasks('kcrec1', 'control-plane')).not.toContain('last good manifests kept');
    expect(up.planned.find((p) => p.role === 'drain')?.summary).toBe(
      `cordon and drain before the kubelet becomes ${K8S} (PodDisruptionBudgets respected, 60 s at most)`,
    );
  });
});

describe('the etcd snapshot restore playbook (recorded facts, fake connection)', () => {
  let restore: Scenario;
  beforeAll(async () => {
    restore = await planOverRecording('empty-debian', restoreVariant());
  }, 60_000);

  it('plans each step on the control plane only, in order, with the cleanup finding nothing to undo', () => {
    expect(restore.failures).toEqual([]);
    expect(restore.exitCode).toBe(3);
    const steps = restore.planned.filter((p) => p.role.startsWith('etcd-restore'));
    expect(steps.map((p) => `${p.host} ${p.task}`)).toEqual([
      'kcrec1 the snapshot on the control plane',
      'kcrec1 build the restored etcd data dir',
      'kcrec1 stop the control plane',
      'kcrec1 swap in the restored data dir',
      'kcrec1 start the control plane',
    ]);
    expect(steps[0]!.summary).toBe('upload etcd-stand-in.db to /var/lib/kcluster/backups/etcd-stand-in.db (sha256 checked)');
    expect(steps[1]!.summary).toBe('etcdutl snapshot restore into /var/lib/etcd.restoring as member kcrec1 of 1');
    expect(steps[3]!.summary).toBe('move /var/lib/etcd to /var/lib/etcd.before-restore-2026-11-24T00-00-00-000Z, the restored data dir to /var/lib/etcd');
  });
});

describe('the certs renew playbook (recorded facts, fake connection)', () => {
  let renew: Scenario;
  beforeAll(async () => {
    renew = await planOverRecording('empty-debian', certsRenewVariant);
  }, 60_000);

  it('the control plane first: its files, the kubelet, then waits for the static pods to be current; then the other nodes', () => {
    expect(renew.failures).toEqual([]);
    const order = renew.planned.map((p) => `${p.host} ${p.role}`).filter((v, i, all) => all.indexOf(v) === i);
    // The control plane's two roles first, in order; the other nodes after it, in parallel (any order).
    expect(order.slice(0, 2)).toEqual(['kcrec1 control-plane', 'kcrec1 kubelet']);
    expect(order.slice(2).sort()).toEqual(['kcrec2 kubelet', 'kcrec3 kubelet']);
    expect(renew.waits.filter((w) => w.startsWith('kcrec1 static-pods-current/'))).toEqual([
      expect.stringMatching(/^kcrec1 static-pods-current\/API server ready, static pods current: would wait for \/readyz/),
    ]);
    expect(renew.planned.filter((p) => p.role === 'addons')).toEqual([]);
  });
});
