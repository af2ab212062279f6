// Pod Security admission's cluster default, from the inventory to the file the API server reads.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderAdmissionConfig } from '../../../src/kubernetes/cluster/admission-config.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

const home = mkdtempSync(join(tmpdir(), 'kc-home-'));
const hosts = 'hosts:\n  - name: cp1\n    address: 10.0.0.1\n    roles: [control-plane]\n';
const parsed = (text: string) => parseInventory(text, 'inv.yaml', { env: { SSH_AUTH_SOCK: '/tmp/agent.sock' }, homeDir: home });

interface PodSecurityPlugin {
  name: string;
  configuration: { kind: string; defaults: Record<string, string>; exemptions: { namespaces: string[]; usernames: string[] } };
}
const podSecurityOf = (text: string): PodSecurityPlugin => {
  const result = parsed(text);
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  const config = parse(renderAdmissionConfig(result.inventory.cluster.podSecurity)) as { kind: string; plugins: PodSecurityPlugin[] };
  expect(config.kind).toBe('AdmissionConfiguration');
  return config.plugins.find((p) => p.name === 'PodSecurity')!;
};

describe('Pod Security admission default', () => {
  it('enforces baseline and warns and audits restricted by default, kube-system exempt', () => {
    const plugin = podSecurityOf(hosts);
    expect(plugin.configuration.kind).toBe('PodSecurityConfiguration');
    expect(plugin.configuration.defaults).toEqual({
      enforce: 'baseline',
      'enforce-version': 'latest',
      warn: 'restricted',
      'warn-version': 'latest',
      audit: 'restricted',
      'audit-version': 'latest',
    });
    expect(plugin.configuration.exemptions.namespaces).toEqual(['kube-system']);
    expect(plugin.configuration.exemptions.usernames).toEqual([]);
  });

  it('takes the levels and extra exempt namespaces from the inventory, kube-system kept once', () => {
    const plugin = podSecurityOf(
      `cluster:\n  podSecurity: { enforce: restricted, warn: restricted, audit: baseline, exemptNamespaces: [monitoring, kube-system] }\n${hosts}`,
    );
    expect(plugin.configuration.defaults).toMatchObject({ enforce: 'restricted', warn: 'restricted', audit: 'baseline' });
    expect(plugin.configuration.exemptions.namespaces).toEqual(['kube-system', 'monitoring']);
  });

  it('reports a misspelt level or a bad namespace at its line and column', () => {
    const errorsOf = (text: string): string[] => {
      const r = parsed(text);
      return r.ok ? [] : r.errors.map(formatDiagnostic);
    };
    expect(errorsOf(`cluster:\n  podSecurity: { enforce: strict }\n${hosts}`)).toEqual([
      'inv.yaml:2:27: cluster.podSecurity.enforce: must be one of privileged, baseline, restricted (got "strict")',
    ]);
    expect(errorsOf(`cluster:\n  podSecurity:\n    exemptNamespaces: [Monitoring]\n${hosts}`)).toEqual([
      'inv.yaml:3:24: cluster.podSecurity.exemptNamespaces[0]: must be a namespace name (got "Monitoring")',
    ]);
  });
});
