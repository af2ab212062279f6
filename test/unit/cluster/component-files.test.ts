// cluster.<component>.extraFiles and cluster.apiServer.oidc: the files read and checked on the
// controller, the --oidc-* flags, the mount in the real manifest templates, and the refusals.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { componentArgProblems, componentExtraArgs } from '../../../src/kubernetes/cluster/component-args.js';
import { loadComponentFiles, oidcArgs } from '../../../src/kubernetes/cluster/component-files.js';
import { kclusterFlags } from '../../../roles/control-plane/kcluster-flags.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { loadInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-component-files-'));
const load = (text: string): Inventory => loadInventoryText(root, text);
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(root, 'ca.key'),
    '-out',
    join(root, 'ca.crt'),
    '-subj',
    '/CN=issuer-ca',
    '-days',
    '2',
  ],
  { stdio: 'ignore' },
);
writeFileSync(join(root, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');

const oidc =
  '    oidc: { issuerUrl: "https://login.example/realms/a", clientId: kubernetes, usernameClaim: email, groupsClaim: groups, groupsPrefix: "oidc:", caFile: ca.crt }\n';

describe('component files and OIDC', () => {
  it('gives the API server the --oidc-* flags sorted, with the CA at its place under /etc/kubernetes/extra', () => {
    const inventory = load(`cluster:\n  apiServer:\n${oidc}${hosts}`);
    expect(oidcArgs(inventory.cluster.apiServerOidc)).toEqual([
      '--oidc-ca-file=/etc/kubernetes/extra/kube-apiserver/oidc-ca.crt',
      '--oidc-client-id=kubernetes',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-issuer-url=https://login.example/realms/a',
      '--oidc-username-claim=email',
    ]);
    expect(componentExtraArgs(inventory.cluster, 'kube-scheduler')).toEqual([]);
  });

  it('reads the files on the controller, and the manifest mounts their folder read-only only when there are some', async () => {
    const inventory = load(`cluster:\n  apiServer:\n    extraFiles: [admission.yaml]\n${oidc}${hosts}`);
    const files = await loadComponentFiles(inventory.cluster);
    expect(files['kube-apiserver'].map((f) => f.name)).toEqual(['admission.yaml', 'oidc-ca.crt']);
    expect(files['kube-scheduler']).toEqual([]);
    const render = createTemplateRenderer().compile(join(packageRoot(), 'roles', 'control-plane', 'templates', 'kube-scheduler.yaml.hbs'));
    const data = {
      extraArgs: [],
      image: 'x',
      inputsHash: 'h',
      nodeName: 'cp1',
      nodeIp: '10.0.0.1',
      apiPort: 6443,
      tlsCipherSuites: 'A',
      clusterName: 'c',
      clusterDomain: 'cluster.local',
      serviceCIDR: '10.96.0.0/12',
      podCIDR: '10.244.0.0/16',
    };
    type Pod = {
      spec: {
        volumes: { name: string; hostPath: { path: string } }[];
        containers: { volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[] }[];
      };
    };
    const without = parse(render({ ...data, extraFilesDir: '' })) as Pod;
    expect(without.spec.volumes.map((v) => v.name)).not.toContain('extra-files');
    const withFiles = parse(render({ ...data, extraFilesDir: '/etc/kubernetes/extra/kube-scheduler' })) as Pod;
    expect(withFiles.spec.volumes).toContainEqual({ name: 'extra-files', hostPath: { path: '/etc/kubernetes/extra/kube-scheduler', type: 'Directory' } });
    expect(withFiles.spec.containers[0]!.volumeMounts).toContainEqual({
      name: 'extra-files',
      mountPath: '/etc/kubernetes/extra/kube-scheduler',
      readOnly: true,
    });
  });

  it('refuses a missing file, a CA that is not a certificate, two files of one name, and --oidc-* flags beside oidc', async () => {
    writeFileSync(join(root, 'not-a-ca.crt'), 'hello');
    const inventory = load(
      `cluster:\n  apiServer:\n    extraFiles: [missing.yaml, admission.yaml, sub/admission.yaml]\n    extraArgs: { oidc-client-id: other }\n    oidc: { issuerUrl: "https://login.example", clientId: k, caFile: not-a-ca.crt }\n${hosts}`,
    );
    const error = await loadComponentFiles(inventory.cluster).catch((e: Error) => e);
    expect((error as Error).message.split('\n')).toEqual([
      `cluster.apiServer.extraFiles: ${join(root, 'missing.yaml')}: no such file on the controller`,
      `cluster.apiServer.extraFiles: ${join(root, 'sub/admission.yaml')}: another file is already named admission.yaml in /etc/kubernetes/extra/kube-apiserver: rename one`,
      `cluster.apiServer.extraFiles: ${join(root, 'sub/admission.yaml')}: no such file on the controller`,
      `cluster.apiServer.oidc.caFile: ${join(root, 'not-a-ca.crt')}: not a PEM certificate: give the issuer's CA certificate`,
    ]);
    expect(componentArgProblems(inventory.cluster, kclusterFlags).map((p) => p.message)).toEqual([
      '--oidc-client-id is set by kcluster on kube-apiserver itself, so it cannot be given again: set cluster.apiServer.oidc instead',
    ]);
  });
});
