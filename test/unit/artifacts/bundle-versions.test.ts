// The default Kubernetes version and its companions are what the bundle our tests install
// builds: the default is what the end-to-end tests prove.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPONENT_VERSIONS, componentVersionsFor } from '../../../src/artifacts/component-versions.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../../src/inventory/defaults.js';

const versions = JSON.parse(readFileSync(new URL('../../e2e/artifacts/versions.json', import.meta.url), 'utf8')) as Record<string, unknown>;

describe('bundle versions = product defaults', () => {
  it('the default Kubernetes version is the first one the bundle builds; the second is the previous minor', () => {
    const k8s = versions['kubernetes'] as string[];
    expect(k8s[0]).toBe(DEFAULT_KUBERNETES_VERSION);
    expect(Number(k8s[1]!.split('.')[1])).toBe(Number(k8s[0]!.split('.')[1]) - 1);
  });

  it('every companion version of both minors is the one the bundle builds', () => {
    for (const version of versions['kubernetes'] as string[]) {
      const c = componentVersionsFor(version);
      expect(c).toEqual({
        etcd: versions['etcd'],
        containerd: versions['containerd'],
        runc: versions['runc'],
        crictl: versions['crictl'],
        cniPlugins: versions['cniPlugins'],
        coredns: versions['coredns'],
        flannel: versions['flannel'],
        criDockerd: versions['criDockerd'],
        pause: versions['pause'],
        apiproxy: versions['apiproxy'],
      });
    }
  });

  it('an unknown minor is an error that lists the known ones', () => {
    expect(() => componentVersionsFor('v1.29.3')).toThrow(`kcluster knows the component versions for Kubernetes ${Object.keys(COMPONENT_VERSIONS).sort().join(', ')}, not 1.29`);
  });
});
