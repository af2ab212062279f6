// Kubernetes' version order and the upgrade skew rules kcluster enforces: pre-releases sort
// below their release (issue 44: v1.37.0-rc.1 compared equal to v1.37.0), build metadata does
// not count; one minor at a time, never down, no kubelet newer than the target or more than
// three minors behind it.
import { describe, expect, it } from 'vitest';
import { compareVersions, skewProblem } from '../../../src/kubernetes/kube/version-skew.js';

describe('compareVersions', () => {
  it('orders releases by major, minor and patch', () => {
    expect(compareVersions('v1.37.2', 'v1.37.10')).toBeLessThan(0);
    expect(compareVersions('v1.38.0', 'v1.37.10')).toBeGreaterThan(0);
    expect(compareVersions('v2.0.0', 'v1.99.99')).toBeGreaterThan(0);
    expect(compareVersions('v1.37.2', 'v1.37.2')).toBe(0);
  });

  it('puts pre-releases below their release, in Semantic Versioning order', () => {
    const ordered = [
      'v1.36.9',
      'v1.37.0-alpha.1',
      'v1.37.0-alpha.2',
      'v1.37.0-alpha.10',
      'v1.37.0-beta.0',
      'v1.37.0-rc.1',
      'v1.37.0',
      'v1.37.1-rc.0',
      'v1.37.1',
    ];
    const shuffled = [...ordered].reverse();
    expect(shuffled.sort(compareVersions)).toEqual(ordered);
    expect(compareVersions('v1.37.0-rc.1', 'v1.37.0')).toBeLessThan(0);
    expect(compareVersions('v1.37.0-rc.1', 'v1.37.0-rc.1.1')).toBeLessThan(0);
    expect(compareVersions('v1.37.0-1', 'v1.37.0-rc')).toBeLessThan(0);
  });

  it('ignores build metadata and refuses what is not a version', () => {
    expect(compareVersions('v1.37.2+k3s1', 'v1.37.2')).toBe(0);
    expect(() => compareVersions('1.37.2', 'v1.37.2')).toThrow('"1.37.2" is not a Kubernetes version');
    expect(() => compareVersions('v1.37', 'v1.37.2')).toThrow('is not a Kubernetes version');
  });
});

describe('skewProblem', () => {
  const at = (apiServer: string, kubelets: Record<string, string> = {}) => ({ apiServer, kubelets });

  it('allows the next minor and a patch, with kubelets up to three minors behind', () => {
    expect(skewProblem(at('v1.36.5', { cp1: 'v1.36.5', w1: 'v1.34.0' }), 'v1.37.2')).toBeUndefined();
    expect(skewProblem(at('v1.37.1', { cp1: 'v1.37.1' }), 'v1.37.2')).toBeUndefined();
  });

  it('refuses a downgrade, a pre-release of the running release included', () => {
    expect(skewProblem(at('v1.37.2'), 'v1.36.5')).toMatch(/would be a downgrade/);
    expect(skewProblem(at('v1.37.0'), 'v1.37.0-rc.1')).toMatch(/would be a downgrade/);
  });

  it('refuses two minors at once, a kubelet newer than the target, and one more than three minors behind', () => {
    expect(skewProblem(at('v1.35.0'), 'v1.37.2')).toMatch(/one minor at a time \(to v1\.36\.x first\)/);
    expect(skewProblem(at('v1.37.2', { w1: 'v1.37.3' }), 'v1.37.2')).toMatch(/node w1 runs kubelet v1\.37\.3, newer than v1\.37\.2/);
    expect(skewProblem(at('v1.36.5', { w1: 'v1.33.9' }), 'v1.37.2')).toMatch(/node w1 runs kubelet v1\.33\.9, more than 3 minors behind/);
  });
});
