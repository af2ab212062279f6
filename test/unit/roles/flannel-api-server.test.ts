// flannel reaches the API server at the address the kubelet uses (the only control plane, the
// load balancer, or the node-local proxy), through KUBERNETES_SERVICE_HOST/PORT in its pod, not
// through the kubernetes Service, which answers only once kube-proxy has written its rules.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { topologyOf } from '../../../src/kubernetes/cluster/topology.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-flannel-'));
const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'addons', 'templates', 'flannel.yaml.hbs'));

interface Container {
  env: { name: string; value?: string }[];
}

function flannelEnv(inventoryText: string): Record<string, string | undefined> {
  const topology = topologyOf(loadInventoryText(root, inventoryText));
  const text = render({
    podCIDR: '10.244.0.0/16',
    image: 'flannel:v1',
    apiServerHost: topology.apiEndpointHost,
    apiServerPort: topology.apiServerPort,
    enableNFTables: false,
  });
  const daemonSet = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; spec?: { template: { spec: { containers: Container[] } } } })
    .find((d) => d.kind === 'DaemonSet')!;
  const env = daemonSet.spec!.template.spec.containers[0]!.env;
  return Object.fromEntries(env.map((e) => [e.name, e.value]));
}

const cp = (n: number) => `  - { name: cp${n}, address: 10.0.0.${n}, roles: [control-plane] }\n`;
const worker = '  - { name: w1, address: 10.0.0.9, roles: [worker] }\n';

describe('flannel and the API server', () => {
  it('one control plane: its address and the API port', () => {
    const env = flannelEnv(`hosts:\n${cp(1)}${worker}`);
    expect([env['KUBERNETES_SERVICE_HOST'], env['KUBERNETES_SERVICE_PORT']]).toEqual(['10.0.0.1', '6443']);
  });

  it('several control planes without a load balancer: the node-local proxy', () => {
    const env = flannelEnv(`hosts:\n${cp(1)}${cp(2)}${cp(3)}${worker}`);
    expect([env['KUBERNETES_SERVICE_HOST'], env['KUBERNETES_SERVICE_PORT']]).toEqual(['127.0.0.1', '6444']);
  });

  it('a load balancer: its host and port, as the kubelet has them', () => {
    const inventory = `cluster:\n  apiEndpoint: { host: api.lab.example, port: 8443 }\nhosts:\n${cp(1)}${cp(2)}${cp(3)}${worker}`;
    const topology = topologyOf(loadInventoryText(root, inventory));
    const env = flannelEnv(inventory);
    expect(`https://${env['KUBERNETES_SERVICE_HOST']}:${env['KUBERNETES_SERVICE_PORT']}`).toBe(topology.apiServerUrl);
    expect(topology.apiServerUrl).toBe('https://api.lab.example:8443');
  });
});
