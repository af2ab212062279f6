// cluster.kubeProxy: the mode and the operator's KubeProxyConfiguration fields, rendered into
// the real kube-proxy template and parsed back; a field kcluster sets refused at file:line:col.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { renderKubeProxyConfigFragment } from '../../../src/kubernetes/cluster/kube-proxy-config.js';
import { kclusterKubeProxyFields } from '../../../roles/addons/kube-proxy-fields.js';
import { refuseWhatKclusterSets } from '../../../playbooks/cluster-inputs.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-kube-proxy-'));
const load = (text: string): Inventory => loadInventoryText(root, text);
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

function kubeProxyConfig(inventory: Inventory): Record<string, unknown> {
  const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'addons', 'templates', 'kube-proxy.yaml.hbs'));
  const text = render({
    podCIDR: '10.244.0.0/16',
    apiServerUrl: 'https://10.0.0.1:6443',
    image: 'kcluster.local/kube-proxy:v1',
    conntrackMaxPerCore: '',
    featureGates: [],
    configSha256: 'x',
    mode: inventory.cluster.kubeProxy.mode,
    operatorConfig: renderKubeProxyConfigFragment(inventory.cluster.kubeProxy.config),
  });
  const configMap = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; data?: Record<string, string> })
    .find((d) => d.kind === 'ConfigMap')!;
  return parse(configMap.data!['config.conf']!) as Record<string, unknown>;
}

describe('cluster.kubeProxy', () => {
  it("defaults to iptables with kcluster's fields only", () => {
    const config = kubeProxyConfig(load(hosts));
    expect(config['mode']).toBe('iptables');
    expect(Object.keys(config).sort()).toEqual(['apiVersion', 'bindAddress', 'clientConnection', 'clusterCIDR', 'kind', 'metricsBindAddress', 'mode']);
  });

  it("sets the mode and adds the operator's fields after kcluster's, nested maps intact", () => {
    const config = kubeProxyConfig(
      load(
        `cluster:\n  kubeProxy:\n    mode: nftables\n    config:\n      nftables: { syncPeriod: 10s, minSyncPeriod: 2s }\n      healthzBindAddress: 0.0.0.0:10256\n${hosts}`,
      ),
    );
    expect(config).toMatchObject({
      mode: 'nftables',
      clusterCIDR: '10.244.0.0/16',
      nftables: { syncPeriod: '10s', minSyncPeriod: '2s' },
      healthzBindAddress: '0.0.0.0:10256',
    });
  });

  it('the fields kcluster sets are read from the template, conditional ones included', () => {
    expect([...kclusterKubeProxyFields()].sort()).toEqual([
      'apiVersion',
      'bindAddress',
      'clientConnection',
      'clusterCIDR',
      'conntrack',
      'featureGates',
      'kind',
      'metricsBindAddress',
      'mode',
    ]);
  });

  it('refuses a field kcluster sets, at its place, naming the setting to use', () => {
    const inventory = load(
      `cluster:\n  kubeProxy:\n    config:\n      iptables: { minSyncPeriod: 1s }\n      mode: ipvs\n      clusterCIDR: 10.0.0.0/8\n${hosts}`,
    );
    expect(() => refuseWhatKclusterSets(inventory)).toThrow(
      `${inventory.file}:5:7: cluster.kubeProxy.config.mode: mode is set by kcluster in kube-proxy's configuration itself, so it cannot be given again: set cluster.kubeProxy.mode instead\n` +
        `${inventory.file}:6:7: cluster.kubeProxy.config.clusterCIDR: clusterCIDR is set by kcluster in kube-proxy's configuration itself, so it cannot be given again: set cluster.podCIDR instead`,
    );
  });
});
