// metrics-server (issue 33): the rendered manifest (RBAC, the APIService, a non-root Deployment
// with a read-only root file system that verifies the kubelets' serving certificates against the
// cluster CA, never --kubelet-insecure-tls), and the inventory switch: on by default, applied by
// the addons role; turned off, nothing when kcluster never applied it, else its recorded objects
// deleted (shown as removed lines by --check --diff) and its keys taken out of the record.
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { metricsServerAddonTask } from '../../../roles/addons/addon-task.js';
import { planAddonRemoval } from '../../../roles/addons/addon-plan.js';
import { addonsRole } from '../../../roles/addons/index.js';
import { addonRecordRemoval } from '../../../src/kubernetes/facts/addon-record.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { effectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import { parseInventoryText } from '../support/inventory-text.js';
import { addonFixture, TWO_HOSTS } from './support/addon-fixture.js';

const { root, inputs, record, planOf, manifestOf } = addonFixture('metrics-server', metricsServerAddonTask);
const IMAGE = 'kcluster.local/metrics-server:v0.9.0';

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  roleRef?: { name: string };
}

const objects = (text: string): K8sObject[] => parseAllDocuments(text).map((d) => d.toJS() as K8sObject);

describe('metrics-server manifest', () => {
  const all = objects(manifestOf());
  const deployment = all.find((o) => o.kind === 'Deployment')!;
  const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec as {
    containers: { image: string; args: string[]; securityContext: Record<string, unknown>; volumeMounts: { name: string; mountPath: string }[] }[];
    volumes: { name: string; configMap?: { name: string } }[];
    serviceAccountName: string;
  };
  const container = pod.containers[0]!;

  it('has the RBAC, the Service, the Deployment and the APIService, in kube-system', () => {
    expect(all.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'ServiceAccount metrics-server',
      'ClusterRole system:aggregated-metrics-reader',
      'ClusterRole system:metrics-server',
      'RoleBinding metrics-server-auth-reader',
      'ClusterRoleBinding metrics-server:system:auth-delegator',
      'ClusterRoleBinding system:metrics-server',
      'Service metrics-server',
      'Deployment metrics-server',
      'APIService v1beta1.metrics.k8s.io',
    ]);
    for (const o of all.filter((x) => ['ServiceAccount', 'RoleBinding', 'Service', 'Deployment'].includes(x.kind)))
      expect(o.metadata.namespace, o.kind).toBe('kube-system');
    expect(all.find((o) => o.kind === 'RoleBinding')!.roleRef!.name).toBe('extension-apiserver-authentication-reader');
    expect(all.find((o) => o.metadata.name === 'system:metrics-server')!.rules).toEqual([
      { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
    ]);
    const api = all.find((o) => o.kind === 'APIService')!.spec!;
    expect([api['group'], api['version'], api['service']]).toEqual(['metrics.k8s.io', 'v1beta1', { name: 'metrics-server', namespace: 'kube-system' }]);
    expect(pod.serviceAccountName).toBe('metrics-server');
  });

  it('verifies the kubelets against the cluster CA (kube-root-ca.crt) at their InternalIP, never insecurely', () => {
    expect(container.image).toBe(IMAGE);
    expect(container.args).toContain('--kubelet-certificate-authority=/etc/kubelet-ca/ca.crt');
    expect(container.args).toContain('--kubelet-preferred-address-types=InternalIP');
    expect(container.args.join(' ')).not.toMatch(/insecure/);
    expect(container.volumeMounts).toContainEqual({ name: 'kubelet-ca', mountPath: '/etc/kubelet-ca', readOnly: true });
    expect(pod.volumes.find((v) => v.name === 'kubelet-ca')!.configMap).toEqual({ name: 'kube-root-ca.crt' });
  });

  it('runs as non-root, with a read-only root file system and no capabilities', () => {
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 65534,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.securityContext).not.toHaveProperty('capabilities.add');
    expect(container.securityContext).not.toHaveProperty('privileged');
  });
});

describe('cluster.metricsServer.enabled', () => {
  it('is true by default, shown by kcluster config; false is accepted; anything else refused at its line', () => {
    expect(inputs().inventory.cluster.metricsServer).toEqual({ enabled: true });
    expect((effectiveConfig(inputs().inventory)['cluster'] as { metricsServer: unknown }).metricsServer).toEqual({ enabled: true });
    expect(inputs('  metricsServer: { enabled: false }\n').inventory.cluster.metricsServer).toEqual({ enabled: false });
    const { file, result } = parseInventoryText(root, `cluster:\n  metricsServer: { enabled: yes please }\n${TWO_HOSTS}`);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors.map((e) => `${e.file === file ? 'file' : e.file}:${e.line}: ${e.path}`)).toEqual(['file:2: cluster.metricsServer.enabled']);
  });

  it('on: the addons role applies it; its image is on every host', () => {
    expect(addonsRole(inputs()).tasks.map((t) => t.name)).toContain('addon metrics-server');
    expect(requiredArtifacts(inputs().inventory).find((a) => a.name === 'metrics-server')).toMatchObject({
      type: 'image',
      version: 'v0.9.0',
      hosts: ['cp1', 'w1'],
    });
    expect(planOf('', {}).kind).toBe('create');
  });

  it('off and never applied: nothing to do, and no image', () => {
    expect(planOf('  metricsServer: { enabled: false }\n', { coredns: 'abc' })).toEqual({
      kind: 'none',
      reason: 'metrics-server is turned off and not applied',
    });
    expect(requiredArtifacts(inputs('  metricsServer: { enabled: false }\n').inventory).map((a) => a.name)).not.toContain('metrics-server');
  });

  it('off after kcluster applied it: deletes what it recorded, the diff shows every line removed', () => {
    const applied = manifestOf();
    const change = planOf('  metricsServer: { enabled: false }\n', { 'metrics-server': 'sha', 'metrics-server.yaml': applied });
    if (!isPending(change)) throw new Error(change.kind);
    expect([change.kind, change.summary]).toEqual(['delete', 'delete metrics-server (turned off in the inventory)']);
    expect(change.payload.manifest).toBe(applied);
    expect(change.diff).toContain('-  name: v1beta1.metrics.k8s.io');
    expect(change.diff!.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toEqual([]);
  });

  it('off, recorded by a kcluster that kept only the sha256: the objects of the current manifest are deleted', () => {
    const change = planAddonRemoval('metrics-server', 'kind: APIService\n', record({ 'metrics-server': 'sha' }));
    if (!isPending(change)) throw new Error(change.kind);
    expect(change.payload.manifest).toBe('kind: APIService\n');
    expect(change.summary).toMatch(/was not recorded \(an older kcluster\)/);
  });

  it('the record loses exactly its two keys', () => {
    expect(JSON.parse(addonRecordRemoval('metrics-server'))).toEqual({ data: { 'metrics-server': null, 'metrics-server.yaml': null } });
  });
});
