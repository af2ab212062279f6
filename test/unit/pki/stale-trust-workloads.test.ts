// Which workloads a CA rotation must roll: pods that read kube-root-ca.crt (token volume or a
// ConfigMap volume) and started before the two-CA bundle was published, by their owner.
import { describe, expect, it } from 'vitest';
import { unreadyPodsOf, workloadsWithStaleTrust, type PodList } from '../../../src/kubernetes/pki/stale-trust-workloads.js';

const tokenVolume = { projected: { sources: [{ serviceAccountToken: {} }, { configMap: { name: 'kube-root-ca.crt' } }] } };
type Pod = NonNullable<PodList['items']>[number];
type Volumes = NonNullable<NonNullable<Pod['spec']>['volumes']>;
const pod = (name: string, namespace: string, startTime: string, more: Record<string, unknown> = {}): Pod => ({
  metadata: { name, namespace, ...(more['metadata'] as object) },
  spec: { volumes: (more['volumes'] as Volumes | undefined) ?? [tokenVolume] },
  status: { phase: (more['phase'] as string) ?? 'Running', startTime, conditions: [{ type: 'Ready', status: (more['ready'] as string) ?? 'True' }] },
});
const published = new Date('2026-11-27T06:00:00Z');
const early = '2026-11-27T05:00:00Z';
const late = '2026-11-27T06:00:01Z';

const pods: PodList = {
  items: [
    pod('web-7d9f8-abcde', 'shop', early, {
      metadata: { labels: { 'pod-template-hash': '7d9f8' }, ownerReferences: [{ kind: 'ReplicaSet', name: 'web-7d9f8', controller: true }] },
    }),
    pod('web-7d9f8-fghij', 'shop', early, {
      metadata: { labels: { 'pod-template-hash': '7d9f8' }, ownerReferences: [{ kind: 'ReplicaSet', name: 'web-7d9f8', controller: true }] },
    }),
    pod('kube-proxy-x1', 'kube-system', early, { metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'kube-proxy', controller: true }] } }),
    pod('db-0', 'shop', early, {
      volumes: [{ configMap: { name: 'kube-root-ca.crt' } }],
      metadata: { ownerReferences: [{ kind: 'StatefulSet', name: 'db', controller: true }] },
    }),
    pod('debug', 'default', early),
    // Started after the bundle was published: it read both CAs.
    pod('fresh-1', 'shop', late, { metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'fresh', controller: true }] } }),
    // No service account token, no ConfigMap of the CA: nothing to reread.
    pod('plain', 'shop', early, { volumes: [] }),
    // A static pod's mirror: its files come from the host, not the API.
    pod('kube-apiserver-cp1', 'kube-system', early, { metadata: { annotations: { 'kubernetes.io/config.mirror': 'x' } } }),
    // Finished: nothing runs.
    pod('job-1-xyz', 'shop', early, { phase: 'Succeeded' }),
  ],
};

describe('workloadsWithStaleTrust', () => {
  it('names each workload once, by its owner, sorted; skips fresh, plain, mirror and finished pods', () => {
    expect(workloadsWithStaleTrust(pods, published)).toEqual([
      { namespace: 'default', kind: 'Pod', name: 'debug' },
      { namespace: 'kube-system', kind: 'DaemonSet', name: 'kube-proxy' },
      { namespace: 'shop', kind: 'Deployment', name: 'web' },
      { namespace: 'shop', kind: 'StatefulSet', name: 'db' },
    ]);
  });

  // Regression (issue 40): on a fast cluster the rotation rolled its addons within the second
  // the trust bundle was published; their start times (whole seconds) read as before the
  // publish (milliseconds) for ever, and rerunning patched the same mark: nothing rolled.
  describe('a pod started in the same second as the publish', () => {
    const publishedMidSecond = new Date('2026-11-28T06:38:19.011Z');
    const daemon = (name: string, annotations?: Record<string, string>): Pod =>
      pod(name, 'kube-system', '2026-11-28T06:38:19Z', {
        metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'kube-flannel', controller: true }], ...(annotations ? { annotations } : {}) },
      });
    const mark = { annotation: 'kcluster.io/ca-rotation', value: '2026-11-28T06:37:00.000Z' };

    it('is fresh when it carries the mark of the roll that made it', () => {
      expect(workloadsWithStaleTrust({ items: [daemon('kube-flannel-a', { [mark.annotation]: mark.value })] }, publishedMidSecond, mark)).toEqual([]);
    });

    it('is stale without the mark, or with the mark of another rotation (it may have started before the publish)', () => {
      const stale = [{ namespace: 'kube-system', kind: 'DaemonSet', name: 'kube-flannel' }];
      expect(workloadsWithStaleTrust({ items: [daemon('kube-flannel-a')] }, publishedMidSecond, mark)).toEqual(stale);
      expect(workloadsWithStaleTrust({ items: [daemon('kube-flannel-a', { [mark.annotation]: 'an earlier rotation' })] }, publishedMidSecond, mark)).toEqual(
        stale,
      );
    });

    it('is fresh once it started in a later second, mark or not', () => {
      const later: Pod = { ...daemon('kube-flannel-b'), status: { phase: 'Running', startTime: '2026-11-28T06:38:20Z' } };
      expect(workloadsWithStaleTrust({ items: [later] }, publishedMidSecond, mark)).toEqual([]);
    });
  });

  it('finds nothing once every pod started after the bundle was published', () => {
    expect(workloadsWithStaleTrust(pods, new Date('2026-11-27T04:00:00Z'))).toEqual([]);
  });
});

describe('unreadyPodsOf', () => {
  it("lists the selected workloads' pods that are not Ready", () => {
    const rolling: PodList = {
      items: [
        pod('fresh-1', 'shop', late, { ready: 'False', metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'fresh', controller: true }] } }),
        pod('other-1', 'shop', late, { ready: 'False', metadata: { ownerReferences: [{ kind: 'DaemonSet', name: 'other', controller: true }] } }),
      ],
    };
    expect(unreadyPodsOf(rolling, [{ namespace: 'shop', kind: 'DaemonSet', name: 'fresh' }])).toEqual(['shop/fresh-1']);
  });
});
