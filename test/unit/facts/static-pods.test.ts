// The wait on each control plane (control-plane role, certs renew) before the next: every static pod
// runs the manifest now on disk (same kcluster.io/inputs-sha256) and is Ready.
import { describe, expect, it } from 'vitest';
import { KUBELET_PICKUP_SECONDS, lagging, parseStaticPods, staticPods } from '../../../src/kubernetes/facts/static-pods.js';

const manifests = 'manifest etcd e2\nmanifest kube-apiserver a2\nmanifest kube-controller-manager c1\nmanifest kube-scheduler s1\n';

describe('static pods after a renewal', () => {
  it('is done when every mirror pod carries its manifest hash and is Ready', () => {
    const pods = parseStaticPods(`${manifests}pod etcd e2 True\npod kube-apiserver a2 True\npod kube-controller-manager c1 True\npod kube-scheduler s1 True\n`);
    expect(lagging(pods)).toEqual([]);
    expect(pods.detail).toBe('');
  });

  it('names the pods still running the previous manifest, not Ready or missing', () => {
    const pods = parseStaticPods(
      `${manifests}pod etcd e1 True\npod kube-apiserver a2 False\npod kube-scheduler s1 \nError from server (NotFound): pods "kube-controller-manager-cp1" not found\n`,
    );
    expect(lagging(pods)).toEqual([
      'etcd (the previous pod still runs)',
      'kube-apiserver (not Ready)',
      'kube-controller-manager (no mirror pod yet)',
      'kube-scheduler (not Ready)',
    ]);
    expect(pods.detail).toBe('Error from server (NotFound): pods "kube-controller-manager-cp1" not found');
  });

  it('never calls a pod current when the manifest has no hash, nor when the API does not answer', () => {
    const noHash = parseStaticPods(
      'manifest etcd -\nmanifest kube-apiserver a2\nmanifest kube-controller-manager c1\nmanifest kube-scheduler s1\npod etcd  True\npod kube-apiserver a2 True\npod kube-controller-manager c1 True\npod kube-scheduler s1 True\n',
    );
    expect(lagging(noHash)).toEqual(['etcd (no manifest with kcluster.io/inputs-sha256)']);
    const down = parseStaticPods(`${manifests}The connection to the server 10.0.0.11:6443 was refused\n`);
    expect(lagging(down)).toHaveLength(4);
    expect(down.detail).toMatch(/was refused/);
  });

  it("waits while a container predates its manifest (a hand edit that kept the hash, undone), for the kubelet's pickup time at most", () => {
    const current = `${manifests}pod etcd e2 True\npod kube-apiserver a2 True\npod kube-controller-manager c1 True\npod kube-scheduler s1 True\n`;
    const containers = (apiserverCreated: number) =>
      `containers ${JSON.stringify({
        containers: [
          { metadata: { name: 'kube-apiserver' }, createdAt: String(apiserverCreated * 1e9) },
          { metadata: { name: 'etcd' }, createdAt: '1000000000000' },
        ],
      })}\n`;
    const at = (now: number, apiserverCreated: number) =>
      parseStaticPods(`${current}mtime kube-apiserver 2000\nmtime etcd 900\nnow ${now}\n${containers(apiserverCreated)}`);
    expect(lagging(at(2010, 1500))).toEqual(['kube-apiserver (its container predates its manifest: the kubelet has not restarted it yet)']);
    expect(lagging(at(2010, 2003))).toEqual([]);
    // A write the kubelet does not restart for (the same pod spec): current once the pickup time has passed.
    expect(lagging(at(2000 + KUBELET_PICKUP_SECONDS, 1500))).toEqual([]);
    // Without the runtime's list (crictl missing or failing) the hashes decide, as before.
    expect(lagging(parseStaticPods(`${current}mtime kube-apiserver 2000\nnow 2010\ncontainers \n`))).toEqual([]);
  });

  it('asks for the mirror pods of this node, by name', () => {
    const text = staticPods('cp2').script.text;
    expect(text).toContain('get pod etcd-cp2 kube-apiserver-cp2 kube-controller-manager-cp2 kube-scheduler-cp2 ');
    expect(text).toContain('for c in etcd kube-apiserver kube-controller-manager kube-scheduler; do');
  });

  it("counts the host's own view when the kubelet reports the recreated mirror pod late: a ready sandbox with the hash running its container, and the component serving", () => {
    // The mirror pods still show the previous hashes (or not Ready): the kubelet's status lags.
    const mirror = 'pod etcd e1 True\npod kube-apiserver a1 True\npod kube-controller-manager c1 False\npod kube-scheduler s0 True\n';
    const sandboxes = (hashes: Record<string, string>) =>
      `sandboxes ${JSON.stringify({
        items: Object.entries(hashes).map(([component, hash]) => ({
          id: `sb-${component}`,
          state: 'SANDBOX_READY',
          labels: { component, tier: 'control-plane' },
          annotations: { 'kcluster.io/inputs-sha256': hash },
        })),
      })}\n`;
    const running = (names: string[]) =>
      `containers ${JSON.stringify({ containers: names.map((name) => ({ metadata: { name }, createdAt: '1000000000000', podSandboxId: `sb-${name}` })) })}\n`;
    const all = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
    const current = { etcd: 'e2', 'kube-apiserver': 'a2', 'kube-controller-manager': 'c1', 'kube-scheduler': 's1' };
    const listening = 'listening 127.0.0.1:2379 10.0.0.11:2379 127.0.0.1:10257 127.0.0.1:10259 *:6443 \n';
    const pods = parseStaticPods(`${manifests}${mirror}${running(all)}${sandboxes(current)}${listening}`);
    expect(pods.components.map((c) => c.local)).toEqual(
      all.map(() => ({ current: true, listening: true })).map((l, i) => (i === 1 ? { ...l, listening: false } : l)),
    );
    expect(lagging(pods, true)).toEqual([]);
    // The API server serves when /readyz answers (read by the apiReady fact), not by a port.
    expect(lagging(pods, false)).toEqual(['kube-apiserver (the previous pod still runs)']);
    // A port that does not listen, a sandbox with another hash, or no running container: the mirror pod decides.
    expect(lagging(parseStaticPods(`${manifests}${mirror}${running(all)}${sandboxes(current)}listening 127.0.0.1:2379 127.0.0.1:10259\n`), true)).toEqual([
      'kube-controller-manager (not Ready)',
    ]);
    expect(lagging(parseStaticPods(`${manifests}${mirror}${running(all)}${sandboxes({ ...current, etcd: 'e1' })}${listening}`), true)).toEqual([
      'etcd (the previous pod still runs)',
    ]);
    expect(
      lagging(parseStaticPods(`${manifests}${mirror}${running(['etcd', 'kube-apiserver', 'kube-controller-manager'])}${sandboxes(current)}${listening}`), true),
    ).toEqual(['kube-scheduler (the previous pod still runs)']);
    // Without the runtime's answer (crictl missing or failing) the mirror pods decide, as before.
    expect(lagging(parseStaticPods(`${manifests}${mirror}containers \nsandboxes \n${listening}`), true)).toEqual([
      'etcd (the previous pod still runs)',
      'kube-apiserver (the previous pod still runs)',
      'kube-controller-manager (not Ready)',
      'kube-scheduler (the previous pod still runs)',
    ]);
  });

  it('asks the runtime for the control-plane sandboxes and the host for its listening ports', () => {
    const text = staticPods('cp1').script.text;
    expect(text).toContain('crictl pods --state ready --label tier=control-plane -o json');
    expect(text).toContain('ss -Hltn');
  });
});
