// The default StorageClass (issue 33): the rendered manifest (rancher's local-path-provisioner in
// its own namespace, labelled for Pod Security's privileged level because its helper pods mount
// a hostPath; the provisioner non-root with a read-only root file system; the StorageClass
// `local-path` marked default, WaitForFirstConsumer, Delete), the helper command by artifact
// source (kcluster's image has no shell, rancher's runs upstream's scripts), and the inventory
// switch: off by default; turned off, nothing when never applied, else its recorded objects
// deleted (shown as removed lines by --check --diff).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { localPathStorageAddonTask } from '../../../roles/addons/addon-task.js';
import { addonsRole } from '../../../roles/addons/index.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import { effectiveConfig } from '../../../src/kubernetes/inventory/effective-config.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import { parseInventoryText } from '../support/inventory-text.js';
import { addonFixture, TWO_HOSTS } from './support/addon-fixture.js';

const { root, inputs, planOf, manifestOf } = addonFixture('local-path', localPathStorageAddonTask);
const ON = '  localPathStorage: { enabled: true }\n';
const BUNDLE = `  artifacts: { source: bundle, bundle: ${join(root, 'bundle')} }\n`;
const IMAGE = 'kcluster.local/local-path-provisioner:v0.0.30';

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [field: string]: unknown;
}

const objects = (text: string): K8sObject[] => parseAllDocuments(text).map((d) => d.toJS() as K8sObject);

interface Container {
  image: string;
  command: string[];
  securityContext: Record<string, unknown>;
}

function partsOf(cluster: string) {
  const all = objects(manifestOf(cluster));
  const config = all.find((o) => o.kind === 'ConfigMap')!.data!;
  const deployment = all.find((o) => o.kind === 'Deployment')!;
  const provisioner = (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;
  const helper = (parseAllDocuments(config['helperPod.yaml']!)[0]!.toJS() as { spec: { containers: Container[] } }).spec.containers[0]!;
  return { all, config, settings: JSON.parse(config['config.json']!) as Record<string, unknown>, provisioner, helper };
}

describe('local-path-storage manifest', () => {
  const { all, settings, provisioner, helper } = partsOf(`${ON}${BUNDLE}`);

  it('has its namespace, RBAC as upstream, the config, the Deployment and the StorageClass', () => {
    expect(all.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      'Namespace local-path-storage',
      'ServiceAccount local-path-provisioner-service-account',
      'Role local-path-provisioner-role',
      'ClusterRole local-path-provisioner-role',
      'RoleBinding local-path-provisioner-bind',
      'ClusterRoleBinding local-path-provisioner-bind',
      'ConfigMap local-path-config',
      'Deployment local-path-provisioner',
      'StorageClass local-path',
    ]);
    for (const o of all.filter((x) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass'].includes(x.kind)))
      expect(o.metadata.namespace, o.kind).toBe('local-path-storage');
  });

  it('the StorageClass is the default, binds at the first pod, deletes the folder with the claim', () => {
    const sc = all.find((o) => o.kind === 'StorageClass')!;
    expect(sc.metadata.annotations).toEqual({ 'storageclass.kubernetes.io/is-default-class': 'true' });
    expect([sc['provisioner'], sc['volumeBindingMode'], sc['reclaimPolicy']]).toEqual(['rancher.io/local-path', 'WaitForFirstConsumer', 'Delete']);
  });

  it('the namespace allows the helper pods hostPath volumes (Pod Security privileged), nothing else is labelled', () => {
    expect(all[0]!.metadata.labels).toEqual({ app: 'local-path-provisioner', 'pod-security.kubernetes.io/enforce': 'privileged' });
  });

  it('the volumes go under the default folder on every node', () => {
    expect(settings['nodePathMap']).toEqual([{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: ['/opt/local-path-provisioner'] }]);
    expect(partsOf(`  localPathStorage: { enabled: true, path: /srv/volumes }\n`).settings['nodePathMap']).toEqual([
      { node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: ['/srv/volumes'] },
    ]);
  });

  it('the provisioner runs as non-root, with a read-only root file system, no capabilities, RuntimeDefault seccomp', () => {
    expect(provisioner.image).toBe(IMAGE);
    expect(provisioner.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 65534,
      runAsGroup: 65534,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'] },
    });
  });

  it('the helper pod runs as root with only DAC_OVERRIDE and FOWNER, read-only root file system, RuntimeDefault seccomp', () => {
    expect(helper.image).toBe(IMAGE);
    expect(helper.securityContext).toEqual({
      runAsUser: 0,
      runAsGroup: 0,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'], add: ['DAC_OVERRIDE', 'FOWNER'] },
    });
  });

  it("source: bundle: kcluster's image, without a shell, runs kcluster-local-path-helper; no scripts", () => {
    const { config } = partsOf(`${ON}${BUNDLE}`);
    expect(provisioner.command[0]).toBe('/local-path-provisioner');
    expect([settings['setupCommand'], settings['teardownCommand']]).toEqual(['/kcluster-local-path-helper', '/kcluster-local-path-helper']);
    expect(Object.keys(config).sort()).toEqual(['config.json', 'helperPod.yaml']);
  });

  it("source: release: rancher's image runs upstream's setup and teardown scripts with its own shell", () => {
    const { config, settings: released, provisioner: published } = partsOf(ON);
    expect(published.command[0]).toBe('/usr/bin/local-path-provisioner');
    expect(released).not.toHaveProperty('setupCommand');
    expect(config['setup']).toContain('mkdir -m 0777 -p "$VOL_DIR"');
    expect(config['teardown']).toContain('rm -rf "$VOL_DIR"');
  });
});

describe('cluster.localPathStorage', () => {
  it("is off by default with rancher's folder, shown by kcluster config; a path other than an absolute folder is refused at its line", () => {
    const off = { enabled: false, path: '/opt/local-path-provisioner' };
    expect(inputs().inventory.cluster.localPathStorage).toEqual(off);
    expect((effectiveConfig(inputs().inventory)['cluster'] as { localPathStorage: unknown }).localPathStorage).toEqual(off);
    for (const path of ['/', 'relative/dir', '/opt/../etc', '/with space', '/quo"te']) {
      const { file, result } = parseInventoryText(root, `cluster:\n  localPathStorage:\n    enabled: true\n    path: '${path}'\n${TWO_HOSTS}`);
      expect(result.ok, path).toBe(false);
      if (!result.ok)
        expect(result.errors.map((e) => `${e.file === file ? 'file' : e.file}:${e.line}: ${e.path}`)).toEqual(['file:4: cluster.localPathStorage.path']);
    }
  });

  it('on: the addons role applies it; its image is on every host', () => {
    expect(addonsRole(inputs(ON)).tasks.map((t) => t.name)).toContain('addon local-path-storage');
    expect(requiredArtifacts(inputs(ON).inventory).find((a) => a.name === 'local-path-provisioner')).toMatchObject({
      type: 'image',
      version: 'v0.0.30',
      hosts: ['cp1', 'w1'],
    });
    expect(planOf(ON, {}).kind).toBe('create');
  });

  it('off and never applied: nothing to do, and no image', () => {
    expect(planOf('', { coredns: 'abc' })).toEqual({ kind: 'none', reason: 'local-path-storage is turned off and not applied' });
    expect(requiredArtifacts(inputs().inventory).map((a) => a.name)).not.toContain('local-path-provisioner');
  });

  it('off after kcluster applied it: deletes what it recorded (the StorageClass, the namespace), the diff shows every line removed', () => {
    const applied = manifestOf(ON);
    const change = planOf('', { 'local-path-storage': 'sha', 'local-path-storage.yaml': applied });
    if (!isPending(change)) throw new Error(change.kind);
    expect([change.kind, change.summary]).toEqual(['delete', 'delete local-path-storage (turned off in the inventory)']);
    expect(change.payload.manifest).toBe(applied);
    expect(change.diff).toContain('-  name: local-path\n');
    expect(change.diff!.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toEqual([]);
  });
});
