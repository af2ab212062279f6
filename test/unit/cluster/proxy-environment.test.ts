// cluster.proxy: the drop-in the runtime and the kubelet get, with NO_PROXY computed from the
// cluster (its CIDRs, domain, nodes and API endpoint) before the operator's own entries.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../src/kubernetes/inventory/load-inventory.js';
import { noProxyList, proxyDropIn } from '../../../src/kubernetes/cluster/proxy-environment.js';
import { parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-proxy-'));
const parsed = (text: string) => parseInventoryText(root, text).result;
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2 }\n';

describe('cluster.proxy', () => {
  it("NO_PROXY holds both families of a dual-stack cluster: its IPv6 ranges and every node's IPv6 address", () => {
    const result = parsed(
      'cluster:\n  podCIDR: 10.244.0.0/16,fd00:10:244::/56\n  serviceCIDR: 10.96.0.0/12,fd00:10:96::/112\n  proxy: { http: http://proxy.corp:3128 }\n' +
        'hosts:\n  - { name: cp1, address: 10.0.0.1, ipv6Address: "fd00::1", roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, ipv6Address: "fd00::2" }\n',
    );
    if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
    expect(noProxyList(result.inventory)).toEqual([
      'localhost',
      '127.0.0.1',
      '10.244.0.0/16',
      '10.96.0.0/12',
      'fd00:10:244::/56',
      'fd00:10:96::/112',
      '.svc',
      '.cluster.local',
      'cp1',
      '10.0.0.1',
      'fd00::1',
      'w1',
      '10.0.0.2',
      'fd00::2',
    ]);
  });

  it("NO_PROXY holds localhost, the CIDRs, the cluster domain, the API endpoint and every node, then the operator's entries once", () => {
    const result = parsed(
      `cluster:\n  apiEndpoint: { host: api.corp.example }\n  proxy:\n    http: http://proxy.corp:3128\n    noProxy: [.corp.example, 10.0.0.1]\n${hosts}`,
    );
    if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
    expect(noProxyList(result.inventory)).toEqual([
      'localhost',
      '127.0.0.1',
      '10.244.0.0/16',
      '10.96.0.0/12',
      '.svc',
      '.cluster.local',
      'api.corp.example',
      'cp1',
      '10.0.0.1',
      'w1',
      '10.0.0.2',
      '.corp.example',
    ]);
    const noProxy = noProxyList(result.inventory).join(',');
    expect(proxyDropIn(result.inventory, '# h')).toBe(
      `# h\n[Service]\nEnvironment="HTTP_PROXY=http://proxy.corp:3128"\nEnvironment="http_proxy=http://proxy.corp:3128"\nEnvironment="NO_PROXY=${noProxy}"\nEnvironment="no_proxy=${noProxy}"\n`,
    );
  });

  it('without a proxy there is no drop-in, and noProxy alone is a warning', () => {
    const none = parsed(hosts);
    expect(none.ok && proxyDropIn(none.inventory, '# h')).toBeUndefined();
    const only = parsed(`cluster:\n  proxy:\n    noProxy: [.corp.example]\n${hosts}`);
    expect(only.ok).toBe(true);
    expect(only.ok ? only.warnings.map(formatDiagnostic) : []).toEqual([expect.stringMatching(/:3:5: warning: cluster\.proxy: neither http nor https is set/)]);
    expect(only.ok && only.inventory.cluster.proxy).toBeUndefined();
  });
});
