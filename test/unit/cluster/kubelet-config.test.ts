// The operator's KubeletConfiguration fields (vars.kubeletConfig): merged per host through the
// vars precedence, added after kcluster's own, and refused where kcluster sets the field, each
// refusal at the file:line:col where the var is written.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubeletConfigProblems, renderKubeletConfigFragment } from '../../../src/kubernetes/cluster/kubelet-config.js';
import { kubeletConfigOf } from '../../../src/kubernetes/cluster/node-vars.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import { kclusterKubeletFields, topLevelFields } from '../../../roles/kubelet/kcluster-fields.js';
import { refuseWhatKclusterSets } from '../../../playbooks/cluster-inputs.js';

const root = mkdtempSync(join(tmpdir(), 'kc-kubelet-config-'));

function parsed(text: string) {
  const file = join(root, `inventory-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const result = parseInventory(text, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: join(root, 'home') });
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  return { file, inventory: result.inventory };
}

const hosts = `hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, roles: [worker], vars: { kubeletConfig: { maxPods: 250 } } }\n  - { name: w2, address: 10.0.0.3, roles: [worker] }\n`;

describe('vars.kubeletConfig', () => {
  it('merges per host through the vars precedence: cluster < group < host, maps key by key', () => {
    const { inventory } = parsed(
      `vars:\n  kubeletConfig: { maxPods: 150, systemReserved: { cpu: 500m, memory: 1Gi } }\ngroups:\n  worker:\n    vars:\n      kubeletConfig: { systemReserved: { memory: 2Gi } }\n${hosts}`,
    );
    const of = (name: string) => {
      const host = inventory.hosts.find((h) => h.name === name)!;
      return kubeletConfigOf({ host, vars: host.vars });
    };
    expect(of('cp1')).toEqual({ maxPods: 150, systemReserved: { cpu: '500m', memory: '1Gi' } });
    expect(of('w1')).toEqual({ maxPods: 250, systemReserved: { cpu: '500m', memory: '2Gi' } });
    expect(of('w2')).toEqual({ maxPods: 150, systemReserved: { cpu: '500m', memory: '2Gi' } });
  });

  it("follows kcluster's fields in the file as YAML that parses back to the same values; nothing without any", () => {
    const text = renderKubeletConfigFragment({ maxPods: 150, systemReserved: { cpu: '500m' }, evictionHard: { 'memory.available': '200Mi' } });
    expect(text).toBe(
      "# The operator's settings (vars.kubeletConfig):\nmaxPods: 150\nsystemReserved:\n  cpu: 500m\nevictionHard:\n  memory.available: 200Mi\n",
    );
    expect(parse(`kind: KubeletConfiguration\n${text}`)).toEqual({
      kind: 'KubeletConfiguration',
      maxPods: 150,
      systemReserved: { cpu: '500m' },
      evictionHard: { 'memory.available': '200Mi' },
    });
    expect(renderKubeletConfigFragment({})).toBe('');
  });

  it("kcluster's own fields are read from the template: top-level keys only", () => {
    expect([...topLevelFields('a: 1\nb:\n  c: 2\n{{#if x}}\nd: 3\n{{/if}}\n')]).toEqual(['a', 'b', 'd']);
    const own = kclusterKubeletFields();
    for (const field of ['authentication', 'cgroupDriver', 'clusterDNS', 'tlsCipherSuites', 'rotateCertificates', 'failSwapOn', 'failCgroupV1', 'featureGates'])
      expect(own.has(field), field).toBe(true);
    expect(own.has('maxPods')).toBe(false);
  });

  it('a field kcluster sets is refused per host, naming the setting to use', () => {
    const { inventory } = parsed(`vars:\n  kubeletConfig: { cgroupDriver: cgroupfs, maxPods: 150 }\n${hosts}`);
    expect(kubeletConfigProblems(inventory, kclusterKubeletFields()).map((p) => `${p.host}: ${p.message}`)).toEqual(
      ['cp1', 'w1', 'w2'].map(
        (h) => `${h}: cgroupDriver is set by kcluster in the kubelet's configuration itself, so it cannot be given again: set vars.cgroupDriver instead`,
      ),
    );
  });

  it('each refusal is reported once, at file:line:col where the var is written (host, group or cluster vars)', () => {
    const { file, inventory } = parsed(
      `vars:\n  kubeletConfig:\n    maxPods: 150\n    featureGates: { A: true }\ngroups:\n  worker:\n    vars:\n      kubeletConfig:\n        staticPodPath: /srv/pods\n${hosts.replace('{ maxPods: 250 }', '{ maxPods: 250, authorization: { mode: AlwaysAllow } }')}`,
    );
    let message = '';
    try {
      refuseWhatKclusterSets(inventory);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toEqual([
      `${file}:4:5: vars.kubeletConfig.featureGates: featureGates is set by kcluster in the kubelet's configuration itself, so it cannot be given again: set cluster.featureGates instead`,
      `${file}:9:9: groups.worker.vars.kubeletConfig.staticPodPath: staticPodPath is set by kcluster in the kubelet's configuration itself, so it cannot be given again: kcluster depends on its value; if you need another, open an issue for a setting`,
      `${file}:12:92: hosts.1.vars.kubeletConfig.authorization: authorization is set by kcluster in the kubelet's configuration itself, so it cannot be given again: kcluster depends on its value; if you need another, open an issue for a setting`,
    ]);
  });
});
