// One version table: the default Kubernetes version is the newest release kcluster knows, every
// release has its companion versions, and an unknown minor is an error that lists the known ones.
import { describe, expect, it } from 'vitest';
import { COMPONENT_VERSIONS, componentVersionsFor, KUBERNETES_RELEASES, minorOf } from '../../../src/kubernetes/artifacts/component-versions.js';
import { DEFAULT_KUBERNETES_VERSION } from '../../../src/kubernetes/inventory/defaults.js';

describe('the version table', () => {
  it('the default Kubernetes version is the first (newest) release; releases are one per minor, newest first', () => {
    expect(KUBERNETES_RELEASES[0]).toBe(DEFAULT_KUBERNETES_VERSION);
    const minors = KUBERNETES_RELEASES.map((v) => Number(minorOf(v).split('.')[1]));
    expect(new Set(minors).size).toBe(minors.length);
    expect([...minors].sort((a, b) => b - a)).toEqual(minors);
  });

  it('every release has its companion versions, and every minor with companions has a release', () => {
    for (const version of KUBERNETES_RELEASES) expect(componentVersionsFor(version).etcd).toMatch(/^v3\./);
    expect(Object.keys(COMPONENT_VERSIONS).sort()).toEqual(KUBERNETES_RELEASES.map(minorOf).sort());
  });

  it('an unknown minor is an error that lists the known ones', () => {
    expect(() => componentVersionsFor('v1.29.3')).toThrow(
      `kcluster knows the component versions for Kubernetes ${Object.keys(COMPONENT_VERSIONS).sort().join(', ')}, not 1.29`,
    );
  });
});
