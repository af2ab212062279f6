// kube-network-policies (issue 33): the rendered manifest (RBAC as upstream's, a DaemonSet on
// the host network with only NET_ADMIN, not privileged, no NRI socket), the wait for it with
// kube-proxy and flannel, and the inventory switch: on by default, applied by the addons role
// after the pod network; turned off, nothing when kcluster never applied it, else its recorded
// objects deleted (shown as removed lines by --check --diff) and its keys taken out of the record.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { networkPolicyAddonTask } from '../../../roles/addons/addon-task.js';
import { addonsRole } from '../../../roles/addons/index.js';
import { nodeWorkloads } from '../../../roles/addons/running.js';
import { addonRecordRemoval } from '../../../src/kubernetes/facts/addon-record.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { effectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import { parseInventoryText } from '../support/inventory-text.js';
import { addonFixture, TWO_HOSTS } from './support/addon-fixture.js';

const { root, inputs, planOf, manifestOf } = addonFixture('network-policy', networkPolicyAddonTask);
const OFF = '  networkPolicy: { enabled: false }\n';

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  subjects?: { kind: string; name: string; namespace: string }[];
}

describe('kube-network-policies manifest', () => {
  const all = parseAllDocuments(manifestOf()).map((d) => d.toJS() as K8sObject);
  const daemonSet = all.find((o) => o.kind === 'DaemonSet')!;
  const pod = (daemonSet.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
    hostNetwork: boolean;
    serviceAccountName: string;
    tolerations: unknown[];
    volumes?: unknown[];
    containers: {
      image: string;
      command: string[];
      args?: string[];
      env: { name: string; value?: string }[];
      securityContext: Record<string, unknown>;
      volumeMounts?: unknown[];
    }[];
  };
  const container = pod.containers[0]!;

  it("has upstream's RBAC (list and watch Pods, Namespaces, NetworkPolicies) and the DaemonSet, in kube-system", () => {
    expect(all.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'ClusterRole kube-network-policies',
      'ClusterRoleBinding kube-network-policies',
      'ServiceAccount kube-network-policies',
      'DaemonSet kube-network-policies',
    ]);
    expect(all.find((o) => o.kind === 'ClusterRole')!.rules).toEqual([
      { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: ['list', 'watch'] },
      { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['list', 'watch'] },
    ]);
    expect(all.find((o) => o.kind === 'ClusterRoleBinding')!.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'kube-network-policies', namespace: 'kube-system' },
    ]);
    expect(daemonSet.metadata.namespace).toBe('kube-system');
    expect(pod.serviceAccountName).toBe('kube-network-policies');
  });

  it('runs on every node, the host network, its image started by command (upstream image and the bundle alike), the API server at the endpoint', () => {
    expect(pod.hostNetwork).toBe(true);
    expect(pod.tolerations).toEqual([{ operator: 'Exists' }]);
    expect(container.image).toBe('kcluster.local/kube-network-policies:v0.8.0');
    expect(container.command[0]).toBe('/bin/netpol');
    expect(container.command).toEqual(expect.arrayContaining(['--hostname-override=$(NODE_NAME)', '--nfqueue-id=98', '--metrics-bind-address=127.0.0.1:9080']));
    expect(container.args).toBeUndefined();
    expect(container.env).toEqual(expect.arrayContaining([{ name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.1' }]));
  });

  it('is not privileged: root with only NET_ADMIN, read-only root file system, no NRI socket nor host folder', () => {
    expect(container.securityContext).toEqual({
      privileged: false,
      runAsUser: 0,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] },
    });
    expect(pod.volumes).toBeUndefined();
    expect(container.volumeMounts).toBeUndefined();
  });
});

describe('cluster.networkPolicy.enabled', () => {
  it('is true by default, shown by kcluster config; false is accepted; anything else refused at its line', () => {
    expect(inputs().inventory.cluster.networkPolicy).toEqual({ enabled: true });
    expect((effectiveConfig(inputs().inventory)['cluster'] as { networkPolicy: unknown }).networkPolicy).toEqual({ enabled: true });
    expect(inputs(OFF).inventory.cluster.networkPolicy).toEqual({ enabled: false });
    const { file, result } = parseInventoryText(root, `cluster:\n  networkPolicy: { enabled: 1 }\n${TWO_HOSTS}`);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.map((e) => `${e.file === file ? 'file' : e.file}:${e.line}: ${e.path}`)).toEqual(['file:2: cluster.networkPolicy.enabled']);
  });

  it('on: applied after the pod network, waited for on every node with kube-proxy and flannel; its image on every host', () => {
    const names = addonsRole(inputs()).tasks.map((t) => t.name);
    expect(names.indexOf('addon kube-network-policies')).toBeGreaterThan(names.indexOf('addon flannel'));
    expect(nodeWorkloads(inputs()).map((w) => w.name)).toEqual(['kube-proxy', 'kube-flannel', 'kube-network-policies']);
    expect(requiredArtifacts(inputs().inventory).find((a) => a.name === 'kube-network-policies')).toMatchObject({
      type: 'image',
      version: 'v0.8.0',
      hosts: ['cp1', 'w1'],
    });
    expect(planOf('', {}).kind).toBe('create');
  });

  it('off and never applied: nothing to do, no image, no wait', () => {
    expect(planOf(OFF, { coredns: 'abc' })).toEqual({ kind: 'none', reason: 'kube-network-policies is turned off and not applied' });
    expect(requiredArtifacts(inputs(OFF).inventory).map((a) => a.name)).not.toContain('kube-network-policies');
    expect(nodeWorkloads(inputs(OFF)).map((w) => w.name)).toEqual(['kube-proxy', 'kube-flannel']);
  });

  it('off after kcluster applied it: deletes what it recorded, the diff shows every line removed, the record loses its two keys', () => {
    const applied = manifestOf();
    const change = planOf(OFF, { 'kube-network-policies': 'sha', 'kube-network-policies.yaml': applied });
    if (!isPending(change)) throw new Error(change.kind);
    expect([change.kind, change.summary]).toEqual(['delete', 'delete kube-network-policies (turned off in the inventory)']);
    expect(change.payload.manifest).toBe(applied);
    expect(change.diff).toContain('-kind: DaemonSet');
    expect(change.diff!.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toEqual([]);
    expect(JSON.parse(addonRecordRemoval('kube-network-policies'))).toEqual({ data: { 'kube-network-policies': null, 'kube-network-policies.yaml': null } });
  });
});
