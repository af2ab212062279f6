// cluster.dns: CoreDNS's upstreams and stub domains, rendered into the real Corefile template
// and parsed back; bad input refused at file:line:col before any host.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { formatDiagnostic } from '../../../src/kubernetes/inventory/load-inventory.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { corednsForwarding } from '../../../roles/addons/coredns-forwarding.js';
import { parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-coredns-'));
const parsed = (text: string) => parseInventoryText(root, text);
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

function corefile(dnsYaml: string): string {
  const { result } = parsed(`cluster:\n${dnsYaml}${hosts}`);
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'addons', 'templates', 'coredns.yaml.hbs'));
  const text = render({
    clusterDomain: 'cluster.local',
    image: 'kcluster.local/coredns:v1',
    replicas: 1,
    dnsServiceIp: '10.96.0.10',
    ...corednsForwarding(result.inventory.cluster.dns),
  });
  const configMap = parseAllDocuments(text)
    .map((d) => d.toJS() as { kind: string; data?: { Corefile: string } })
    .find((d) => d.kind === 'ConfigMap')!;
  return configMap.data!.Corefile;
}

describe('cluster.dns', () => {
  it("by default forwards to each node's /etc/resolv.conf and has one server block", () => {
    const text = corefile('  name: c\n');
    expect(text).toContain('forward . /etc/resolv.conf {');
    expect(text.match(/^\S.*:1053 \{$/gm)).toEqual(['.:1053 {']);
  });

  it('forwards to the upstreams in the order written, and gives each stub domain its own block, sorted', () => {
    const text = corefile(
      '  dns:\n    upstreams: [10.0.0.53, "10.0.0.54:5353"]\n    stubDomains:\n      z.example: [10.2.0.53]\n      corp.example: [10.1.0.53, 10.1.0.54]\n',
    );
    expect(text).toContain('forward . 10.0.0.53 10.0.0.54:5353 {');
    expect(text).not.toContain('/etc/resolv.conf');
    expect(text.match(/^\S.*:1053 \{$/gm)).toEqual(['.:1053 {', 'corp.example:1053 {', 'z.example:1053 {']);
    const corp = text.slice(text.indexOf('corp.example:1053'), text.indexOf('z.example:1053'));
    expect(corp).toMatch(/errors\n\s+cache 30\n\s+forward \. 10\.1\.0\.53 10\.1\.0\.54\n\s*\}/);
  });

  it('refuses a bad server, an empty list and a stub domain that overlaps the cluster domain, each at its place', () => {
    const { file, result } = parsed(
      `cluster:\n  dns:\n    upstreams: [dns.example]\n    stubDomains:\n      cluster.local: [10.1.0.53]\n      corp.example: []\n${hosts}`,
    );
    expect(result.ok).toBe(false);
    const messages = result.ok ? [] : result.errors.map(formatDiagnostic);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${file}:3:17: cluster\\.dns\\.upstreams\\[0\\]: .*IPv4 address with an optional :port`)),
        expect.stringMatching(new RegExp(`^${file}:6:21: cluster\\.dns\\.stubDomains\\.corp\\.example: .*1-15 DNS servers`)),
      ]),
    );
    const overlap = parsed(`cluster:\n  dns:\n    stubDomains:\n      svc.cluster.local: [10.1.0.53]\n${hosts}`);
    expect(overlap.result.ok).toBe(false);
    expect(overlap.result.ok ? [] : overlap.result.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        new RegExp(`^${overlap.file}:4:26: cluster\\.dns\\.stubDomains\\.svc\\.cluster\\.local: overlaps the cluster domain cluster\\.local`),
      ),
    ]);
  });
});
