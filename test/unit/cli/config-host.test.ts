// `kcluster config --host SELECTOR`: what apply writes for each component of those hosts, rendered by
// the cluster playbook's own tasks (the same templates, the same data), without SSH and
// without writing the state folder.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { writeFakeBundle } from '../support/fake-bundle.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-config-host-'));
const HOSTS = 'hosts:\n  - { name: cp1, address: 192.0.2.1, roles: [control-plane] }\n  - { name: w1, address: 192.0.2.2, roles: [worker] }\n';
const CLUSTER = (bundle: string) =>
  `stateDir: ${join(root, 'state')}\ncluster:\n  artifacts: { source: bundle, bundle: ${bundle} }\n  featureGates: { SomeGate: true }\n  apiServer:\n    extraArgs: { audit-log-compress: "true" }\nvars:\n  kubeletConfig: { maxPods: 150 }\n${HOSTS}`;
const bundle = writeFakeBundle(join(root, 'bundle'), [loadInventoryText(root, CLUSTER('/x'))]);
const file = join(root, 'inventory.yaml');
writeFileSync(file, CLUSTER(bundle));

describe('kcluster config --host', () => {
  it("prints a control plane's static pods as flags, its kubelet's config and containerd's, from the inventory", async () => {
    const r = await runCli(['config', '-i', file, '--host', 'cp1']);
    writeFileSync(join(root, 'cp1.txt'), r.out);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    for (const component of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'])
      expect(r.out).toContain(`## /etc/kubernetes/manifests/${component}.yaml [control-plane]`);
    expect(r.out).toMatch(/^ {2}--audit-log-compress=true$/m); // the operator's flag
    expect(r.out).toMatch(/^ {2}--feature-gates=SomeGate=true$/m);
    expect(r.out).toMatch(/^ {2}--advertise-address=192\.0\.2\.1$/m);
    expect(r.out).toContain('## /var/lib/kubelet/config.yaml [kubelet]');
    expect(r.out).toMatch(/^maxPods: 150$/m);
    expect(r.out).toContain('## /etc/containerd/config.toml [containerd]');
    // The addons, cluster-wide: kube-proxy's configuration, the Corefile.
    expect(r.out).toContain('## addon kube-proxy [addons, cluster-wide]');
    expect(r.out).toMatch(/^clusterCIDR: 10\.244\.0\.0\/16$/m);
    expect(r.out).toMatch(/^# ConfigMap coredns Corefile:$/m);
    expect(r.out).not.toMatch(/PRIVATE KEY|client-key-data/);
    // Nothing written in the state folder.
    expect(existsSync(join(root, 'state', 'pki'))).toBe(false);
  });

  it('a worker has no static pod; -o json lists the files', async () => {
    const r = await runCli(['config', '-i', file, '--host', 'w1', '-o', 'json']);
    expect(r.code).toBe(0);
    const files = JSON.parse(r.out) as { path: string; role: string; content: string }[];
    expect(files.map((f) => f.path)).toContain('/var/lib/kubelet/config.yaml');
    expect(files.some((f) => f.path.startsWith('/etc/kubernetes/manifests/'))).toBe(false);
    expect(files.map((f) => f.path)).toContain('addon kube-proxy');
  });

  it('a selector (a group, all) prints each host in turn; -o json then lists the files by host; the state folder stays unwritten', async () => {
    const all = await runCli(['config', '-i', file, '--host', 'all']);
    expect(all.code, all.err).toBe(0);
    expect(all.out.indexOf('/etc/kubernetes/manifests/kube-apiserver.yaml')).toBeGreaterThan(0);
    expect(all.out.match(/## \/var\/lib\/kubelet\/config\.yaml \[kubelet\]/g)).toHaveLength(2);
    const byHost = JSON.parse((await runCli(['config', '-i', file, '--host', 'worker', '-o', 'json'])).out) as Record<string, { path: string }[]>;
    expect(Object.keys(byHost)).toEqual(['w1']);
    expect(byHost['w1']!.map((f) => f.path)).toContain('/var/lib/kubelet/config.yaml');
    expect(existsSync(join(root, 'state'))).toBe(false);
    const typo = await runCli(['config', '-i', file, '--host', 'cp']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('(did you mean "cp1"?)');
  });

  it('an unknown host, or inputs apply refuses, exit 2', async () => {
    const r = await runCli(['config', '-i', file, '--host', 'nope']);
    expect(r).toMatchObject({ code: 2, out: '' });
    expect(r.err).toContain('--host: no host or group named "nope"');
    const missing = join(root, 'no-bundle.yaml');
    writeFileSync(missing, `cluster:\n  artifacts: { source: bundle, bundle: ${join(root, 'nowhere')} }\n${HOSTS}`);
    const refused = await runCli(['config', '-i', missing, '--host', 'cp1']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/no-bundle\.yaml:\d+:\d+: cluster\.artifacts\.bundle: bundle .*nowhere: not found/);
  });

  it('source: release with no imageRepository: every image by its upstream name (the images role imports none)', async () => {
    const release = join(root, 'release.yaml');
    writeFileSync(release, `stateDir: ${join(root, 'state-release')}\n${HOSTS}`);
    const r = await runCli(['config', '-i', release, '--host', 'cp1']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const images = [...r.out.matchAll(/^image: (.+)$/gm)].map((m) => m[1]);
    expect(images).toEqual([
      'registry.k8s.io/etcd:3.7.3-0',
      'registry.k8s.io/kube-apiserver:v1.37.2',
      'registry.k8s.io/kube-controller-manager:v1.37.2',
      'registry.k8s.io/kube-scheduler:v1.37.2',
      'registry.k8s.io/kube-proxy:v1.37.2',
      'ghcr.io/flannel-io/flannel:v0.28.10',
      'registry.k8s.io/networking/kube-network-policies:v0.8.0',
      'registry.k8s.io/metrics-server/metrics-server:v0.9.0',
      'registry.k8s.io/coredns/coredns:v1.14.6',
    ]);
    expect(r.out).toContain('sandbox = "registry.k8s.io/pause:3.10.2"');
  });
});

describe('kcluster config --host with the control planes copying snapshots into a state store', () => {
  it('shows the control plane without asking for the upload credential, and never the settings that would hold it', async () => {
    const withStore = (bundlePath: string): string =>
      CLUSTER(bundlePath).replace(
        '  featureGates:',
        '  state:\n    s3: { endpoint: "http://192.0.2.9:7070", bucket: state }\n    key: { env: KC_KEY }\n    scheduledSnapshots: { accessKeyIdEnv: KC_SNAP_ID, secretAccessKeyEnv: KC_SNAP_SECRET }\n  featureGates:',
      );
    const storeBundle = writeFakeBundle(join(root, 'bundle-store'), [loadInventoryText(root, withStore('/x'))]);
    const stored = join(root, 'store.yaml');
    writeFileSync(stored, withStore(storeBundle));
    const r = await runCli(['config', '-i', stored, '--host', 'cp1']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('## /etc/kubernetes/manifests/kube-apiserver.yaml [control-plane]');
    expect(r.out).not.toContain('snapshot-upload.json');
  });
});
