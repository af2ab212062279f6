// The soak's inventory: the lab's with only the model's hosts and their roles, and the settings
// the operations changed merged into the lab's own.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { soakInventoryYaml } from '../../soak/soak-inventory.js';

const LAB = `cluster: { name: kcsoak, artifacts: { source: bundle, bundle: /b } }
stateDir: /s
vars: { cgroupDriver: cgroupfs, kubeletConfig: { imageGCHighThresholdPercent: 100 } }
hosts:
  - { name: kcsoak1, address: 10.231.20.11, roles: [control-plane] }
  - { name: kcsoak2, address: 10.231.20.12, roles: [worker] }
  - { name: kcsoak3, address: 10.231.20.13, roles: [worker] }
`;
const name = (i: number) => `kcsoak${i}`;

describe('soakInventoryYaml', () => {
  it('lists only the model’s hosts, in host order, each with its role, and keeps the rest', () => {
    const doc = parse(soakInventoryYaml(LAB, { controlPlanes: [1, 3], workers: [], spares: [2] }, name)) as Record<string, unknown>;
    expect(doc['hosts']).toEqual([
      { name: 'kcsoak1', address: '10.231.20.11', roles: ['control-plane'] },
      { name: 'kcsoak3', address: '10.231.20.13', roles: ['control-plane'] },
    ]);
    expect(doc['stateDir']).toBe('/s');
    expect(doc['vars']).toEqual({ cgroupDriver: 'cgroupfs', kubeletConfig: { imageGCHighThresholdPercent: 100 } });
  });

  it('merges maxPods into the lab’s kubeletConfig and an API server flag kcluster leaves to the operator', () => {
    const doc = parse(
      soakInventoryYaml(LAB, { controlPlanes: [1], workers: [2], spares: [3], kubeletMaxPods: 120, apiServerMutatingInflight300: false }, name),
    ) as {
      vars: Record<string, unknown>;
      cluster: Record<string, unknown>;
    };
    expect(doc.vars['kubeletConfig']).toEqual({ imageGCHighThresholdPercent: 100, maxPods: 120 });
    expect(doc.cluster).toEqual({
      name: 'kcsoak',
      artifacts: { source: 'bundle', bundle: '/b' },
      apiServer: { extraArgs: { 'max-mutating-requests-inflight': '200' } },
    });
  });

  it('refuses a host the lab does not have', () => {
    expect(() => soakInventoryYaml(LAB, { controlPlanes: [1], workers: [4], spares: [] }, name)).toThrow('no host kcsoak4');
  });

  it('writes the bundle’s second-newest release until the model says upgraded, then its newest', () => {
    const releases = { previous: 'v1.36.5', newest: 'v1.37.2' };
    const version = (upgraded?: boolean) =>
      (
        parse(soakInventoryYaml(LAB, { controlPlanes: [1], workers: [2], spares: [3], ...(upgraded !== undefined ? { upgraded } : {}) }, name, releases)) as {
          cluster: Record<string, unknown>;
        }
      ).cluster['kubernetesVersion'];
    expect(version()).toBe('v1.36.5');
    expect(version(false)).toBe('v1.36.5');
    expect(version(true)).toBe('v1.37.2');
  });
});
