// The vars kcluster's roles read: one typed reader each, one default each, the host named on a
// bad value; and the inventory schema refuses the same mistakes with file:line:col first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cgroupDriverOf,
  dockerPackagesOf,
  failSwapOnOf,
  kubeProxyConntrackMaxPerCoreOf,
  ociRuntimeBinaryOf,
} from '../../../src/kubernetes/cluster/node-vars.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { hostContext } from '../tasks/support/host-context.js';

const home = mkdtempSync(join(tmpdir(), 'kc-vars-home-'));

function errorsOf(vars: string): string[] {
  const text = `vars:\n${vars}hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n`;
  const result = parseInventory(text, 'inv.yaml', { env: { SSH_AUTH_SOCK: '/a' }, homeDir: home });
  return result.ok ? [] : result.errors.map(formatDiagnostic);
}

describe('node vars', () => {
  it('apply their defaults when unset', () => {
    const ctx = hostContext('node-1');
    expect(cgroupDriverOf(ctx)).toBe('systemd');
    expect(ociRuntimeBinaryOf(ctx, 'containerd')).toBe('/usr/local/sbin/runc');
    expect(ociRuntimeBinaryOf(ctx, 'docker')).toBeUndefined();
    expect(failSwapOnOf(ctx)).toBe(true);
    expect(dockerPackagesOf(ctx)).toEqual(['docker.io']);
    expect(kubeProxyConntrackMaxPerCoreOf(ctx)).toBeUndefined();
  });

  it('take valid values', () => {
    const ctx = hostContext('node-1', {
      cgroupDriver: 'cgroupfs',
      ociRuntimeBinary: '/usr/bin/crun',
      failSwapOn: false,
      dockerPackages: ['moby-engine'],
      kubeProxyConntrackMaxPerCore: 0,
    });
    expect([cgroupDriverOf(ctx), ociRuntimeBinaryOf(ctx, 'docker'), failSwapOnOf(ctx), dockerPackagesOf(ctx), kubeProxyConntrackMaxPerCoreOf(ctx)]).toEqual([
      'cgroupfs',
      '/usr/bin/crun',
      false,
      ['moby-engine'],
      0,
    ]);
  });

  it('refuse bad values naming the host and the var', () => {
    expect(() => cgroupDriverOf(hostContext('node-2', { cgroupDriver: 'Systemd' }))).toThrow(
      'node-2: var cgroupDriver must be systemd or cgroupfs (got "Systemd")',
    );
    expect(() => ociRuntimeBinaryOf(hostContext('node-2', { ociRuntimeBinary: 'runc' }), 'containerd')).toThrow(
      'node-2: var ociRuntimeBinary must be an absolute path (got "runc")',
    );
    expect(() => failSwapOnOf(hostContext('node-2', { failSwapOn: 'no' }))).toThrow('node-2: var failSwapOn must be true or false (got "no")');
    expect(() => dockerPackagesOf(hostContext('node-2', { dockerPackages: ['docker.io; rm -rf /'] }))).toThrow(
      'node-2: var dockerPackages must be a list of package names',
    );
    expect(() => kubeProxyConntrackMaxPerCoreOf(hostContext('node-2', { kubeProxyConntrackMaxPerCore: -1 }))).toThrow(
      'node-2: var kubeProxyConntrackMaxPerCore must be a whole number, 0 or more (got -1)',
    );
  });

  it('are checked by the inventory schema, with file:line:col, before any host is touched; other vars are free', () => {
    expect(errorsOf('  cgroupDriver: Systemd\n')).toEqual([
      'inv.yaml:2:17: vars.cgroupDriver: must be one of systemd, cgroupfs (got "Systemd"); did you mean "systemd"?',
    ]);
    expect(errorsOf('  failSwapOn: "no"\n')).toEqual(['inv.yaml:2:15: vars.failSwapOn: must be true or false (got "no")']);
    expect(errorsOf('  readyTimeoutSeconds: 5\n')).toEqual(['inv.yaml:2:24: vars.readyTimeoutSeconds: must be a whole number of seconds, 10-7200 (got 5)']);
    expect(errorsOf('  myOwnVar: { anything: [1, 2] }\n  greeting: hello\n')).toEqual([]);
  });
});
