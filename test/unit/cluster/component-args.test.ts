// The operator's component flags and feature gates: how they reach each component's command
// line, and the refusal (at file:line:col, before any host) of flags kcluster sets itself.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { componentArgProblems, componentExtraArgs, featureGateList } from '../../../src/kubernetes/cluster/component-args.js';
import { formatDiagnostic } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { flagsInManifestTemplate, kclusterFlags } from '../../../roles/control-plane/kcluster-flags.js';
import { refuseWhatKclusterSets } from '../../../playbooks/cluster-inputs.js';
import { pkiSpecOf } from '../../../src/kubernetes/cluster/pki-spec.js';
import { topologyOf } from '../../../src/kubernetes/cluster/topology.js';
import { leafRequests } from '../../../src/kubernetes/pki/cluster-pki.js';
import { loadInventoryText, parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-component-args-'));
const parsed = (text: string) => parseInventoryText(root, text);
const load = (text: string): Inventory => loadInventoryText(root, text);
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

describe('component flags and feature gates', () => {
  const inventory = load(
    `cluster:\n  featureGates: { InPlacePodVerticalScaling: true, AnonymousAuthConfigurableEndpoints: false }\n` +
      `  apiServer:\n    extraArgs: { oidc-issuer-url: "https://issuer.example", max-requests-inflight: 800, enable-aggregator-routing: true }\n` +
      `  etcd:\n    extraArgs: { quota-backend-bytes: 8589934592 }\n${hosts}`,
  );

  it('go on the command line sorted by flag, values as written (numbers and booleans too), the gates last', () => {
    expect(componentExtraArgs(inventory.cluster, 'kube-apiserver')).toEqual([
      '--enable-aggregator-routing=true',
      '--max-requests-inflight=800',
      '--oidc-issuer-url=https://issuer.example',
      '--feature-gates=AnonymousAuthConfigurableEndpoints=false,InPlacePodVerticalScaling=true',
    ]);
    expect(componentExtraArgs(inventory.cluster, 'kube-scheduler')).toEqual([
      '--feature-gates=AnonymousAuthConfigurableEndpoints=false,InPlacePodVerticalScaling=true',
    ]);
  });

  it('etcd gets its own flags but not the Kubernetes feature gates', () => {
    expect(componentExtraArgs(inventory.cluster, 'etcd')).toEqual(['--quota-backend-bytes=8589934592']);
  });

  it('the kubelet and kube-proxy get the gates as a sorted list for their configuration files', () => {
    expect(featureGateList(inventory.cluster.featureGates)).toEqual([
      { name: 'AnonymousAuthConfigurableEndpoints', enabled: false },
      { name: 'InPlacePodVerticalScaling', enabled: true },
    ]);
  });

  it("kube-proxy's configuration (in the addon's ConfigMap) gets them as a map, indented inside its config.conf", () => {
    const render = createTemplateRenderer().compile(join('roles', 'addons', 'templates', 'kube-proxy.yaml.hbs'));
    const data = {
      podCIDR: '10.244.0.0/16',
      clusterDomain: 'cluster.local',
      apiServerUrl: 'https://10.0.0.1:6443',
      dnsServiceIp: '10.96.0.10',
      image: 'kube-proxy:v1',
      conntrackMaxPerCore: '',
      mode: 'iptables',
      operatorConfig: '',
      configSha256: 'x',
    };
    const withGates = render({ ...data, featureGates: featureGateList(inventory.cluster.featureGates) });
    expect(withGates).toContain(
      '    metricsBindAddress: 127.0.0.1:10249\n    featureGates:\n      AnonymousAuthConfigurableEndpoints: false\n      InPlacePodVerticalScaling: true\n  kubeconfig.conf: |\n',
    );
    const config = parse(
      withGates
        .split('\n---\n')
        .map((doc) => parse(doc) as { kind?: string; data?: Record<string, string> })
        .find((doc) => doc?.kind === 'ConfigMap')!.data!['config.conf']!,
    ) as { featureGates: Record<string, boolean> };
    expect(config.featureGates).toEqual({ AnonymousAuthConfigurableEndpoints: false, InPlacePodVerticalScaling: true });
    expect(render({ ...data, featureGates: [] })).not.toContain('featureGates');
  });

  it('nothing is added without settings', () => {
    const plain = load(hosts);
    for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const) expect(componentExtraArgs(plain.cluster, c)).toEqual([]);
  });
});

describe('cluster.apiServer.certSANs', () => {
  it("go into the API server certificate's request, and the schema refuses what is neither a DNS name nor an IPv4 address at file:line:col", () => {
    const inventory = load(`cluster:\n  apiServer:\n    certSANs: [api.lab.example, "*.apps.example", 10.0.0.100]\n${hosts}`);
    const spec = pkiSpecOf(inventory, topologyOf(inventory));
    const request = leafRequests(spec).find((r) => r.file === 'apiserver')!;
    expect(request.dnsNames).toEqual(expect.arrayContaining(['api.lab.example', '*.apps.example']));
    expect(request.ipAddresses).toContain('10.0.0.100');
    const { file, result } = parsed(`cluster:\n  apiServer:\n    certSANs: [API.example, ok.example]\n${hosts}`);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map(formatDiagnostic).filter((m) => m.startsWith(`${file}:3:`) && m.includes('certSANs'))).toHaveLength(1);
  });
});

describe('the flags kcluster sets itself', () => {
  it('are read from the manifest templates: every "- --flag" item, with or without a value', () => {
    expect([
      ...flagsInManifestTemplate(
        '      command:\n        - etcd\n        - --name={{nodeName}}\n        - --client-cert-auth\n      env:\n        - name: X\n',
      ),
    ]).toEqual(['name', 'client-cert-auth']);
    for (const [component, count] of [
      ['kube-apiserver', 40],
      ['kube-controller-manager', 18],
      ['kube-scheduler', 6],
      ['etcd', 21],
    ] as const) {
      const template = readFileSync(join('roles', 'control-plane', 'templates', `${component}.yaml.hbs`), 'utf8');
      expect(kclusterFlags(component).size, component).toBe(template.split('\n').filter((l) => /^\s*- --/.test(l)).length);
      expect(kclusterFlags(component).size).toBe(count);
    }
    expect(kclusterFlags('kube-apiserver').has('service-cluster-ip-range')).toBe(true);
    expect(kclusterFlags('etcd').has('data-dir')).toBe(true);
  });

  it('are refused, naming the inventory setting that controls the value where there is one', () => {
    const inventory = load(
      `cluster:\n  apiServer:\n    extraArgs: { service-cluster-ip-range: 10.0.0.0/16, profiling: true, oidc-client-id: k, feature-gates: "A=true" }\n  etcd:\n    extraArgs: { feature-gates: "StopGRPCServiceOnDefrag=true", data-dir: /srv/etcd }\n${hosts}`,
    );
    expect(componentArgProblems(inventory.cluster, kclusterFlags).map((p) => `${[...p.path, p.flag].join('.')}: ${p.message}`)).toEqual([
      'cluster.etcd.extraArgs.data-dir: --data-dir is set by kcluster on etcd itself, so it cannot be given again: kcluster depends on its value (certificates, ports, waits); if you need another, open an issue for a setting',
      'cluster.apiServer.extraArgs.service-cluster-ip-range: --service-cluster-ip-range is set by kcluster on kube-apiserver itself, so it cannot be given again: set cluster.serviceCIDR instead',
      'cluster.apiServer.extraArgs.profiling: --profiling is set by kcluster on kube-apiserver itself, so it cannot be given again: kcluster depends on its value (certificates, ports, waits); if you need another, open an issue for a setting',
      'cluster.apiServer.extraArgs.feature-gates: --feature-gates is set by kcluster on kube-apiserver itself, so it cannot be given again: set cluster.featureGates instead',
    ]);
  });

  it('each refusal names file:line:col of the flag in the inventory, before any host is touched', () => {
    const { file, result } = parsed(`cluster:\n  scheduler:\n    extraArgs:\n      v: 4\n      bind-address: 0.0.0.0\n${hosts}`);
    if (!result.ok) throw new Error('inventory did not load');
    expect(() => refuseWhatKclusterSets(result.inventory)).toThrow(
      `${file}:5:7: cluster.scheduler.extraArgs.bind-address: --bind-address is set by kcluster on kube-scheduler itself`,
    );
  });

  it('the schema refuses a flag written with its dashes, a gate that is not a boolean, and unknown keys, each at file:line:col', () => {
    const { file, result } = parsed(
      `cluster:\n  apiServer:\n    extraArgs: { --v: 2 }\n  featureGates: { SomeGate: "yes" }\n  controllerManager: { args: {} }\n${hosts}`,
    );
    expect(result.ok).toBe(false);
    const messages = result.ok ? [] : result.errors.map(formatDiagnostic);
    expect(messages.some((m) => m.startsWith(`${file}:3:`) && m.includes('extraArgs'))).toBe(true);
    expect(messages.some((m) => m.startsWith(`${file}:4:`) && m.includes('SomeGate'))).toBe(true);
    expect(messages.some((m) => m.startsWith(`${file}:5:`) && m.includes('args'))).toBe(true);
  });
});
