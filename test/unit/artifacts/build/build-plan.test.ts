// What `kcluster bundle build` plans: only the components asked for, each stage once, the pause
// image after the kubernetes stage it takes its source from, the tools only when images are made.
import { describe, expect, it } from 'vitest';
import { defaultComponentsFor, everyComponentFor, inventoryComponents, planBundleBuild } from '../../../../src/kubernetes/artifacts/build/build-plan.js';
import { requiredArtifacts } from '../../../../src/kubernetes/artifacts/required-artifacts.js';
import { parseInventory } from '../../../../src/kubernetes/inventory/load-inventory.js';

const ids = (stages: { id: string }[]): string[] => stages.map((s) => s.id);

function inventory(text: string) {
  const parsed = parseInventory(text, '/tmp/inventory.yaml', { env: {}, homeDir: '/tmp' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.inventory;
}

describe('bundle build plan', () => {
  it('one release: every component for both runtimes, the tools, each once', () => {
    const stages = planBundleBuild(everyComponentFor(['v1.35.8']));
    expect(ids(stages)).toEqual([
      'mkimage@1',
      'kubernetes@v1.35.8',
      'etcd@v3.6.16',
      'containerd@v2.2.9',
      'runc@v1.4.3',
      'cri-dockerd@v0.4.6',
      'crictl@v1.36.0',
      'cni-plugins@v1.9.1',
      'coredns@v1.13.1',
      'flannel@v0.28.10',
      'metrics-server@v0.9.0',
      'local-path-provisioner@v0.0.30',
      'kube-network-policies@v0.8.0',
      'helm@v4.3.1',
      'pause@3.10.1',
      'kcluster-apiproxy@2',
      'kcluster-relay@1',
      'kcluster-snapshot-upload@1',
      'keepalived@2.2.7',
      'netbase-rootfs@1',
    ]);
    expect(stages.find((s) => s.name === 'pause')!.after).toEqual(['kubernetes@v1.35.8']);
    expect(stages.find((s) => s.name === 'kcluster-apiproxy')!.sources).toEqual(['src/kubernetes/apiproxy']);
    expect(stages.find((s) => s.name === 'local-path-provisioner')!.sources).toEqual(['src/kubernetes/local-path-helper']);
    expect(stages.filter((s) => !s.go).map((s) => s.name)).toEqual(['pause', 'keepalived', 'netbase-rootfs']);
  });

  it('two releases: two kubernetes stages, shared companions once, each pause from the newest release', () => {
    const stages = planBundleBuild(everyComponentFor(['v1.36.5', 'v1.35.8']), { testTools: true });
    expect(ids(stages).filter((id) => id.startsWith('kubernetes@'))).toEqual(['kubernetes@v1.36.5', 'kubernetes@v1.35.8']);
    expect(ids(stages).filter((id) => id.startsWith('etcd@'))).toEqual(['etcd@v3.6.16']);
    expect(ids(stages).filter((id) => id.startsWith('coredns@'))).toEqual(['coredns@v1.14.2', 'coredns@v1.13.1']);
    expect(stages.filter((s) => s.name === 'pause').map((s) => [s.id, s.after])).toEqual([
      ['pause@3.10.2', ['kubernetes@v1.36.5']],
      ['pause@3.10.1', ['kubernetes@v1.36.5']],
    ]);
    expect(ids(stages).at(-1)).toBe('test-tools@1');
  });

  it('an inventory gets only what it installs: containerd without cri-dockerd, no proxy with one control plane', () => {
    const inv = inventory(
      'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2 }\nssh:\n  user: root\n  agent: true\n',
    );
    const wanted = requiredArtifacts(inv).map((a) => ({ component: a.component, version: a.version }));
    const names = planBundleBuild(wanted).map((s) => s.name);
    expect(names).toContain('containerd');
    expect(names).not.toContain('cri-dockerd');
    expect(names).not.toContain('kcluster-apiproxy');
    expect(names).not.toContain('test-tools');
  });

  it('no inventory: what one keeping every default installs, the same as requiredArtifacts of such an inventory with three control planes', () => {
    const names = planBundleBuild(defaultComponentsFor(['v1.37.2'])).map((s) => s.name);
    expect(names).not.toContain('cri-dockerd');
    expect(names).not.toContain('helm');
    expect(names).not.toContain('local-path-provisioner');
    // Three control planes and no load balancer: the local API proxy too, so the default bundle serves HA.
    // A bundle source: the relay, which passes a bundle's pieces between hosts, is in it too.
    const ha = inventory(
      'cluster:\n  artifacts: { source: bundle, bundle: /srv/bundle }\nhosts:\n' +
        ['cp1', 'cp2', 'cp3'].map((h, i) => `  - { name: ${h}, address: 10.0.0.${i + 1}, roles: [control-plane] }\n`).join('') +
        '  - { name: w1, address: 10.0.0.9 }\nssh:\n  user: root\n  agent: true\n',
    );
    const wanted = requiredArtifacts(ha).map((a) => ({ component: a.component, version: a.version }));
    expect([...names].sort()).toEqual(
      planBundleBuild(wanted)
        .map((s) => s.name)
        .sort(),
    );
  });

  it('an inventory with charts gets Helm, which runs on the controller and no host receives', () => {
    const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\nssh:\n  user: root\n  agent: true\n';
    const without = inventory(`cluster:\n  artifacts: { source: bundle, bundle: /srv/bundle }\n${hosts}`);
    expect(inventoryComponents(without).map((w) => w.component)).not.toContain('helm');
    const withCharts = inventory(
      `cluster:\n  artifacts: { source: bundle, bundle: /srv/bundle }\n  charts:\n    - { release: demo, namespace: apps, chart: /srv/demo, version: 1.2.3 }\n${hosts}`,
    );
    expect(inventoryComponents(withCharts).filter((w) => w.component === 'helm')).toEqual([{ component: 'helm', version: 'v4.3.1' }]);
  });

  it('binaries only: no image tool and no Debian root file system', () => {
    expect(ids(planBundleBuild([{ component: 'runc', version: 'v1.4.3' }]))).toEqual(['runc@v1.4.3']);
  });

  it('the pause image without a Kubernetes version is an error that says why', () => {
    expect(() => planBundleBuild([{ component: 'pause', version: '3.10.1' }])).toThrow(/C source in the kubernetes module/);
  });
});
