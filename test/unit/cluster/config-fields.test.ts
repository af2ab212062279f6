// The operator's KubeletConfiguration (vars.kubeletConfig) and KubeProxyConfiguration
// (cluster.kubeProxy.config) fields checked against the field trees generated from the
// Kubernetes API types of the inventory's minor: an unknown field or a scalar of the wrong kind
// is refused at its file:line:col, naming the version and the closest known field; validate
// (and apply, through the same function) refuse it before any host is touched.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/support/run-cli.js';
import { refuseWhatKclusterSets } from '../../../playbooks/cluster-inputs.js';
import { KUBERNETES_RELEASES, minorOf } from '../../../src/kubernetes/artifacts/component-versions.js';
import { configFieldProblems } from '../../../src/kubernetes/cluster/config-field-check.js';
import { CONFIG_FIELDS_DIR, configFieldsFile, configFieldsFor, stagingVersion, type ConfigFieldNode } from '../../../src/kubernetes/cluster/config-fields.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-config-fields-'));

/** The inventory `text` saved and loaded, and the lines refuseWhatKclusterSets refuses it with (none when it passes). */
function refusals(text: string): { file: string; lines: string[] } {
  const { file, result } = parseInventoryText(root, text);
  if (!result.ok) throw new Error(result.errors.map((d) => d.message).join('\n'));
  try {
    refuseWhatKclusterSets(result.inventory);
    return { file, lines: [] };
  } catch (error) {
    return { file, lines: (error as Error).message.split('\n') };
  }
}

const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.2, roles: [worker] }\n';

describe('vars.kubeletConfig checked against KubeletConfiguration', () => {
  it('refuses maxpods at its line:col, naming the version and maxPods', () => {
    const { file, lines } = refusals(`cluster:\n  kubernetesVersion: v1.36.5\nvars:\n  kubeletConfig:\n    maxpods: 150\n${hosts}`);
    expect(lines).toEqual([
      `${file}:5:5: vars.kubeletConfig.maxpods: "maxpods" is not a field in the kubelet's KubeletConfiguration of Kubernetes v1.36.5: did you mean "maxPods"?`,
    ]);
  });

  it('accepts valid fields at every depth: maps, lists of objects, durations, quantities', () => {
    const config = [
      'maxPods: 150',
      'systemReserved: { cpu: 500m, memory: 1Gi }',
      "evictionHard: { memory.available: 200Mi, 'nodefs.available': 10% }",
      'reservedMemory: [{ numaNode: 0, limits: { memory: 1Gi } }]',
      'shutdownGracePeriod: 30s',
      'shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 20 }]',
      'logging: { format: json, flushFrequency: 5s, options: { json: { infoBufferSize: 1Mi } }, vmodule: [{ filePattern: foo, verbosity: 4 }] }',
      'kubeAPIQPS: 50',
      'memoryThrottlingFactor: 0.9',
      'podPidsLimit: ~',
    ];
    const proxy =
      'cluster:\n  kubeProxy:\n    config:\n      iptables: { minSyncPeriod: 1s, masqueradeAll: true }\n      nftables: { syncPeriod: 30s }\n      detectLocal: { bridgeInterface: cni0 }\n';
    expect(refusals(`${proxy}vars:\n  kubeletConfig:\n${config.map((l) => `    ${l}\n`).join('')}${hosts}`).lines).toEqual([]);
  });

  it('refuses an unknown nested field where it is written (a group, a host), naming the closest one under its parent', () => {
    const text = `groups:\n  worker:\n    vars:\n      kubeletConfig:\n        logging:\n          options:\n            json: { infoBuferSize: 1Mi }\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane], vars: { kubeletConfig: { reservedMemory: [{ numaNode: 0, limitz: {} }] } } }\n  - { name: w1, address: 10.0.0.2, roles: [worker] }\n`;
    const { file, lines } = refusals(text);
    expect(lines).toEqual([
      `${file}:9:118: hosts.0.vars.kubeletConfig.reservedMemory.0.limitz: "limitz" is not a field under reservedMemory.0 in the kubelet's KubeletConfiguration of Kubernetes v1.37.2: did you mean "limits"?`,
      `${file}:7:21: groups.worker.vars.kubeletConfig.logging.options.json.infoBuferSize: "infoBuferSize" is not a field under logging.options.json in the kubelet's KubeletConfiguration of Kubernetes v1.37.2: did you mean "infoBufferSize"?`,
    ]);
  });

  it('refuses a scalar of the wrong kind at its value, once for all the hosts that inherit it', () => {
    const { file, lines } = refusals(
      `vars:\n  kubeletConfig:\n    maxPods: "150"\n    shutdownGracePeriod: 30\n    systemReserved: { cpu: [1], memory: 1 }\n${hosts}`,
    );
    expect(lines).toEqual([
      `${file}:3:14: vars.kubeletConfig.maxPods: must be a whole number in the kubelet's KubeletConfiguration of Kubernetes v1.37.2, not the string "150"`,
      `${file}:4:26: vars.kubeletConfig.shutdownGracePeriod: must be a duration such as 10s or 1m30s in the kubelet's KubeletConfiguration of Kubernetes v1.37.2, not 30`,
      `${file}:5:28: vars.kubeletConfig.systemReserved.cpu: must be a string in the kubelet's KubeletConfiguration of Kubernetes v1.37.2, not a list`,
      `${file}:5:41: vars.kubeletConfig.systemReserved.memory: must be a string in the kubelet's KubeletConfiguration of Kubernetes v1.37.2, not 1 (quote it: "1")`,
    ]);
  });

  it('is refused by kcluster validate (which calls the same function as apply): on stderr, exit 2', async () => {
    const { file } = parseInventoryText(
      root,
      `vars:\n  kubeletConfig: { maxpods: 150 }\ncluster:\n  artifacts: { imageRepository: registry.example/k8s }\n${hosts}`,
    );
    const { code, err } = await runCli(['validate', '-i', file]);
    expect(code).toBe(2);
    expect(err).toBe(
      `kcluster: ${file}:2:20: vars.kubeletConfig.maxpods: "maxpods" is not a field in the kubelet's KubeletConfiguration of Kubernetes v1.37.2: did you mean "maxPods"?\n`,
    );
  });
});

describe('cluster.kubeProxy.config checked against KubeProxyConfiguration', () => {
  it('refuses iptables.minSyncPerod at its line:col, naming minSyncPeriod', () => {
    const { file, lines } = refusals(
      `cluster:\n  kubeProxy:\n    config:\n      iptables:\n        minSyncPerod: 1s\n      nftables: { syncPeriod: 30 }\n${hosts}`,
    );
    expect(lines).toEqual([
      `${file}:5:9: cluster.kubeProxy.config.iptables.minSyncPerod: "minSyncPerod" is not a field under iptables in kube-proxy's KubeProxyConfiguration of Kubernetes v1.37.2: did you mean "minSyncPeriod"?`,
      `${file}:6:31: cluster.kubeProxy.config.nftables.syncPeriod: must be a duration such as 10s or 1m30s in kube-proxy's KubeProxyConfiguration of Kubernetes v1.37.2, not 30`,
    ]);
  });
});

describe('configFieldProblems (the walk itself)', () => {
  const tree: ConfigFieldNode = {
    kind: 'object',
    fields: {
      name: { kind: 'string' },
      labels: { kind: 'map', values: { kind: 'string' } },
      items: { kind: 'list', items: { kind: 'object', fields: { size: { kind: 'quantity' }, id: { kind: 'intOrString' } } } },
      raw: { kind: 'any' },
    },
  };

  it('map keys are free, list items are checked, any is left alone, null is unset', () => {
    expect(
      configFieldProblems(
        {
          name: null,
          labels: { anything: 'x' },
          items: [
            { size: 1, id: 'a' },
            { size: '1Gi', id: 2 },
          ],
          raw: { whatever: [1] },
        },
        tree,
        'T',
      ),
    ).toEqual([]);
  });

  it('an unknown name with nothing close gets no suggestion; a map where a list goes is refused', () => {
    expect(configFieldProblems({ zzzzzz: 1, items: {} }, tree, 'T')).toEqual([
      { path: ['zzzzzz'], atKey: true, message: '"zzzzzz" is not a field in T' },
      { path: ['items'], atKey: false, message: 'must be a list in T, not a map' },
    ]);
  });
});

describe('the committed field trees', () => {
  it('cover every release of the version table, generated from its own modules (npm run gen:config-fields)', () => {
    for (const release of KUBERNETES_RELEASES) {
      const trees = configFieldsFor(release);
      expect(trees, `${configFieldsFile(minorOf(release))} is missing: run npm run gen:config-fields`).toBeDefined();
      expect(trees!.kubernetesVersion, `${configFieldsFile(minorOf(release))} is stale: run npm run gen:config-fields`).toBe(release);
      expect(trees!.modules).toEqual({ 'k8s.io/kubelet': stagingVersion(release), 'k8s.io/kube-proxy': stagingVersion(release) });
      expect(trees!.kubelet.fields?.['maxPods']).toEqual({ kind: 'int' });
      expect(trees!.kubeProxy.fields?.['iptables']?.fields?.['minSyncPeriod']).toEqual({ kind: 'duration' });
    }
  });

  it('hold no file for a minor the table does not have', () => {
    const wanted = KUBERNETES_RELEASES.map((r) => `v${minorOf(r)}.json`).sort();
    expect(readdirSync(join(packageRoot(), CONFIG_FIELDS_DIR)).sort()).toEqual(wanted);
  });
});
