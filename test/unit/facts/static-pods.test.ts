// The wait on each control plane (control-plane role, certs renew) before the next: every static pod
// runs the manifest now on disk (same kcluster.io/inputs-sha256) and is Ready.
import { describe, expect, it } from 'vitest';
import { KUBELET_PICKUP_SECONDS, lagging, parseStaticPods, staticPods } from '../../../src/kubernetes/facts/static-pods.js';

const manifests = 'manifest etcd e2\nmanifest kube-apiserver a2\nmanifest kube-controller-manager c1\nmanifest kube-scheduler s1\n';

/** The kubelet's /pods answer, as the fact prints it on one line: static pods [component, hash, Ready], plus a DaemonSet pod. */
function kubeletPods(pods: readonly (readonly [string, string, string])[]): string {
  const items = pods.map(([component, hash, ready]) => ({
    metadata: { name: `${component}-cp1`, labels: { component }, annotations: { 'kubernetes.io/config.source': 'file', ...(hash ? { 'kcluster.io/inputs-sha256': hash } : {}) } },
    status: { conditions: [{ type: 'Initialized', status: 'True' }, ...(ready ? [{ type: 'Ready', status: ready }] : [])] },
  }));
  items.push({ metadata: { name: 'kube-proxy-x1', labels: { component: 'kube-proxy' }, annotations: { 'kubernetes.io/config.source': 'api' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  return `kubelet-pods ${JSON.stringify({ kind: 'PodList', items })}\n`;
}
const allCurrent = kubeletPods([['etcd', 'e2', 'True'], ['kube-apiserver', 'a2', 'True'], ['kube-controller-manager', 'c1', 'True'], ['kube-scheduler', 's1', 'True']]);

describe('static pods after a renewal', () => {
  it('is done when every pod the kubelet runs carries its manifest hash and is Ready', () => {
    const pods = parseStaticPods(`${manifests}${allCurrent}`);
    expect(lagging(pods)).toEqual([]);
    expect(pods.detail).toBe('');
  });

  it('names the pods still running the previous manifest, not Ready or missing; a DaemonSet pod is not a static pod', () => {
    const pods = parseStaticPods(`${manifests}${kubeletPods([['etcd', 'e1', 'True'], ['kube-apiserver', 'a2', 'False'], ['kube-scheduler', 's1', '']])}`);
    expect(lagging(pods)).toEqual(['etcd (the previous pod still runs)', 'kube-apiserver (not Ready)', 'kube-controller-manager (the kubelet runs no such pod yet)', 'kube-scheduler (not Ready)']);
    expect(pods.detail).toBe('');
  });

  it('never calls a pod current when the manifest has no hash, nor when the API does not answer', () => {
    const noHash = parseStaticPods(`manifest etcd -\nmanifest kube-apiserver a2\nmanifest kube-controller-manager c1\nmanifest kube-scheduler s1\n${kubeletPods([['etcd', '', 'True'], ['kube-apiserver', 'a2', 'True'], ['kube-controller-manager', 'c1', 'True'], ['kube-scheduler', 's1', 'True']])}`);
    expect(lagging(noHash)).toEqual(['etcd (no manifest with kcluster.io/inputs-sha256)']);
    const down = parseStaticPods(`${manifests}kubelet-pods The connection to the server 10.0.0.11:6443 was refused\n`);
    expect(lagging(down)).toHaveLength(4);
    expect(down.detail).toMatch(/was refused/);
    const garbled = parseStaticPods(`${manifests}kubelet-pods {"items": [\n`);
    expect(lagging(garbled)).toHaveLength(4);
    expect(garbled.detail).toMatch(/not JSON/);
  });

  it('waits while a container predates its manifest (a hand edit that kept the hash, undone), for the kubelet\'s pickup time at most', () => {
    const current = `${manifests}${allCurrent}`;
    const containers = (apiserverCreated: number) =>
      `containers ${JSON.stringify({ containers: [{ metadata: { name: 'kube-apiserver' }, createdAt: String(apiserverCreated * 1e9) }, { metadata: { name: 'etcd' }, createdAt: '1000000000000' }] })}\n`;
    const at = (now: number, apiserverCreated: number) => parseStaticPods(`${current}mtime kube-apiserver 2000\nmtime etcd 900\nnow ${now}\n${containers(apiserverCreated)}`);
    expect(lagging(at(2010, 1500))).toEqual(['kube-apiserver (its container predates its manifest: the kubelet has not restarted it yet)']);
    expect(lagging(at(2010, 2003))).toEqual([]);
    // A write the kubelet does not restart for (the same pod spec): current once the pickup time has passed.
    expect(lagging(at(2000 + KUBELET_PICKUP_SECONDS, 1500))).toEqual([]);
    // Without the runtime's list (crictl missing or failing) the hashes decide, as before.
    expect(lagging(parseStaticPods(`${current}mtime kube-apiserver 2000\nnow 2010\ncontainers \n`))).toEqual([]);
  });

  it('asks the kubelet of this node for its pods, through the node proxy', () => {
    const text = staticPods('cp2').script.text;
    expect(text).toMatch(/get --raw \/api\/v1\/nodes\/'?cp2'?\/proxy\/pods/);
    expect(text).toContain("for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do");
  });
});
