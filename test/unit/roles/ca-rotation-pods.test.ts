// The restart-pods phase of a CA rotation: what its task plans from the pod list (kcluster's
// addons always, the operator's only when selected; bare pods never), and which phases a
// rotation of some CAs goes through (`--ca` as the command parses it).
import { describe, expect, it } from 'vitest';
import { restartStaleTrustTask } from '../../../roles/ca-rotation/index.js';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import { isSystemWorkload, type PodList, type WorkloadRef } from '../../../src/kubernetes/pki/stale-trust-workloads.js';
import { parseCas, parseDuration } from '../../../src/cli/commands/certs-rotate-ca.js';
import { phasesFor } from '../../../src/kubernetes/pki/ca-rotation.js';
import { runCli } from '../cli/support/run-cli.js';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';

const rotation = { cas: ['ca'] as const, phase: 'restart-pods' as const, startedAt: '2026-11-27T06:00:00.000Z' };
const published = new Date('2026-11-27T06:10:00Z');
const owned = (name: string, namespace: string, kind: string, owner: string) => ({
  metadata: { name, namespace, ownerReferences: [{ kind, name: owner, controller: true }] },
  spec: { volumes: [{ projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } }] },
  status: { phase: 'Running', startTime: '2026-11-27T05:00:00Z', conditions: [{ type: 'Ready', status: 'True' }] },
});
const list: PodList = {
  items: [
    owned('kube-proxy-a', 'kube-system', 'DaemonSet', 'kube-proxy'),
    owned('db-0', 'shop', 'StatefulSet', 'db'),
    { ...owned('debug', 'shop', 'Node', 'x') },
  ],
};
// The task reads the cluster inputs only when it rolls (the admin API): planning needs none.
const planWith = (selected: (w: WorkloadRef) => boolean, pods: PodList) =>
  restartStaleTrustTask({} as ClusterInputs, rotation, published, selected).plan({ pods: { reachable: true, list: pods } } as never, {} as HostContext);

describe('the restart-pods task', () => {
  it("rolls kcluster's addons alone unless the operator's workloads are selected; never a bare pod", () => {
    expect(planWith(isSystemWorkload, list)).toMatchObject({
      kind: 'run',
      payload: { stale: [{ namespace: 'kube-system', kind: 'DaemonSet', name: 'kube-proxy' }] },
    });
    const all = planWith(() => true, list);
    expect(all).toMatchObject({ kind: 'run' });
    expect((all as unknown as { payload: { stale: { name: string }[] } }).payload.stale.map((w) => w.name)).toEqual(['kube-proxy', 'db']);
  });

  it('changes nothing when every selected pod started after the bundle was published', () => {
    const fresh = { items: list.items!.map((p) => ({ ...p, status: { ...p.status, startTime: '2026-11-27T06:11:00Z' } })) };
    expect(planWith(() => true, fresh).kind).toBe('none');
  });

  it('changes nothing for pods its own roll made in the second the bundle was published (a fast cluster; issue 40)', () => {
    const sameSecond = (annotations: Record<string, string> | undefined) => ({
      items: list.items!.map((p) => ({
        ...p,
        metadata: { ...p.metadata, ...(annotations ? { annotations } : {}) },
        status: { ...p.status, startTime: '2026-11-27T06:10:00Z' },
      })),
    });
    const midSecond = new Date('2026-11-27T06:10:00.011Z');
    const task = restartStaleTrustTask({} as ClusterInputs, rotation, midSecond, () => true);
    const plan = (pods: PodList) => task.plan({ pods: { reachable: true, list: pods } } as never, {} as HostContext);
    expect(plan(sameSecond({ 'kcluster.io/ca-rotation': rotation.startedAt })).kind).toBe('none');
    // Not rolled by this rotation: it may have read the old bundle, so it is rolled (once).
    expect(plan(sameSecond(undefined)).kind).toBe('run');
  });

  it('waits while the API server does not answer', () => {
    const task = restartStaleTrustTask({} as ClusterInputs, rotation, published, () => true);
    expect(task.plan({ pods: { reachable: false, detail: 'connection refused' } } as never, {} as HostContext)).toMatchObject({ kind: 'wait' });
  });
});

describe('certs rotate-ca phases and --ca', () => {
  it('skips restart-pods when only the etcd CA rotates (no pod reads it); the service-account key restarts pods after its new key signs', () => {
    expect(phasesFor(['etcd/ca'])).toEqual(['trust-new', 'reissue', 'drop-old']);
    expect(phasesFor(['sa'])).toEqual(['trust-new', 'reissue', 'restart-pods', 'drop-old']);
    expect(phasesFor(['front-proxy-ca'])).toEqual(['trust-new', 'restart-pods', 'reissue', 'drop-old']);
  });

  it('parses all, names and refuses an unknown one, naming the choices', () => {
    expect(parseCas('all')).toEqual(['ca', 'etcd/ca', 'front-proxy-ca']);
    expect(parseCas('etcd, cluster')).toEqual(['etcd/ca', 'ca']);
    expect(parseCas(undefined)).toBeUndefined();
    expect(() => parseCas('cluster,kubelet')).toThrow(
      '--ca cluster,kubelet: unknown CA kubelet: give all, or any of cluster, etcd, front-proxy (comma separated)',
    );
  });
});

describe('--keep-old-key', () => {
  it('takes s, m, h and d; refuses anything else, naming the flag', () => {
    expect(parseDuration('90s', '--keep-old-key')).toBe(90_000);
    expect(parseDuration('24h', '--keep-old-key')).toBe(86_400_000);
    expect(parseDuration('7d', '--keep-old-key')).toBe(604_800_000);
    expect(() => parseDuration('1w', '--keep-old-key')).toThrow('--keep-old-key 1w: give a duration such as 90s, 30m, 24h or 7d');
  });
});

describe('certs rotate-ca refuses options that would do nothing', () => {
  it('--keep-old-key without --service-account-key: exit 2, naming it, before the inventory is read', async () => {
    const r = await runCli(['certs', 'rotate-ca', '-i', 'no-such-inventory.yaml', '--keep-old-key', '1h']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--keep-old-key 1h: only the service-account key');
    expect(r.err).not.toContain('no-such-inventory.yaml');
  });
});
