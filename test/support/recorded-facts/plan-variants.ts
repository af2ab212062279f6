// The inventory edits and playbooks the role plan tests plan, shared with the fact recorder so
// that a recording holds every fact section these plans read.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import type { Playbook } from '../../../src/orchestrator/engine/types.js';
import { upgradePlaybook } from '../../../playbooks/upgrade.js';
import { snapshotRestorePlaybook } from '../../../playbooks/etcd-snapshot.js';
import { certsRenewPlaybook } from '../../../playbooks/certs-renew.js';
import { clusterPlaybook } from '../../../playbooks/cluster.js';

export interface PlanVariant {
  readonly edit?: (doc: Record<string, unknown>) => void;
  readonly build?: (inputs: ClusterInputs) => Playbook;
}

type Doc = Record<string, unknown>;
const cluster = (doc: Doc, more: Record<string, unknown>): void => {
  doc['cluster'] = { ...(doc['cluster'] as object), ...more };
};

export const flagsVariant: PlanVariant = {
  edit(doc) {
    cluster(doc, {
      featureGates: { InPlacePodVerticalScaling: true, AnonymousAuthConfigurableEndpoints: false },
      apiServer: { extraArgs: { 'oidc-issuer-url': 'https://login.example/realms/a b', 'max-requests-inflight': 800 } },
      scheduler: { extraArgs: { v: 4 } },
    });
    doc['vars'] = { ...(doc['vars'] as object | undefined), kubeletConfig: { maxPods: 150, systemReserved: { cpu: '500m' } } };
  },
};

export const REGISTRY_PASSWORD = 'plan-test-password';

/** Registries with credentials (from the env), a proxy, the operator's manifests and API server files. */
export function settingsVariant(): PlanVariant {
  process.env['KC_PLAN_REGISTRY_USER'] = 'robot';
  process.env['KC_PLAN_REGISTRY_PASSWORD'] = REGISTRY_PASSWORD;
  const dir = mkdtempSync(join(tmpdir(), 'kc-plan-settings-'));
  const own = join(dir, 'manifests');
  mkdirSync(own);
  writeFileSync(join(own, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: { name: team-a }\n');
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
      join(dir, 'oidc.key'),
      '-out',
      join(dir, 'oidc-ca.pem'),
      '-subj',
      '/CN=issuer',
      '-days',
      '2',
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'admission.yaml'), 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
  return {
    edit(doc) {
      cluster(doc, {
        apiServer: {
          extraFiles: [join(dir, 'admission.yaml')],
          oidc: { issuerUrl: 'https://login.example', clientId: 'kubernetes', caFile: join(dir, 'oidc-ca.pem') },
        },
        registries: {
          'registry.corp.example': { mirrors: ['http://10.231.7.1:5000'], usernameEnv: 'KC_PLAN_REGISTRY_USER', passwordEnv: 'KC_PLAN_REGISTRY_PASSWORD' },
        },
        proxy: { http: 'http://proxy.corp.example:3128', noProxy: ['.corp.example'] },
        manifests: [own],
      });
    },
  };
}

/** The second host a control plane too, on Docker Engine. */
export const haDockerVariant: PlanVariant = {
  edit(doc) {
    const hosts = doc['hosts'] as { roles: string[] }[];
    hosts[1]!.roles = ['control-plane'];
    cluster(doc, { containerRuntime: 'docker' });
  },
};

export const upgradeVariant: PlanVariant = { build: (inputs) => upgradePlaybook(inputs, { maxUnavailable: 1, drainTimeoutMs: 60_000 }) };

export function restoreVariant(): PlanVariant {
  // a stand-in file: check mode uploads nothing and never reads it on a host
  const file = join(mkdtempSync(join(tmpdir(), 'kc-restore-plan-')), 'etcd-stand-in.db');
  writeFileSync(file, 'not a real snapshot\n');
  return { build: (inputs) => snapshotRestorePlaybook(inputs.inventory, { localFile: file, sha256: 'a'.repeat(64), stamp: '2026-11-24T00-00-00-000Z' }) };
}

export const certsRenewVariant: PlanVariant = { build: (inputs) => certsRenewPlaybook(inputs) };

export const SNAPSHOT_UPLOAD_SECRET = 'plan-test-snapshot-secret';

/** A state store whose control planes copy their scheduled snapshots into it (the credential and key as a store session gives them). */
export const scheduledSnapshotUploadVariant: PlanVariant = {
  edit(doc) {
    cluster(doc, {
      state: {
        s3: { endpoint: 'http://10.231.7.1:7070', bucket: 'plan-state', prefix: 'plan/' },
        key: { env: 'KC_PLAN_STATE_KEY' },
        scheduledSnapshots: { accessKeyIdEnv: 'KC_PLAN_SNAP_ID', secretAccessKeyEnv: 'KC_PLAN_SNAP_SECRET', keep: 4 },
      },
    });
  },
  build: (inputs) =>
    clusterPlaybook(
      {
        ...inputs,
        snapshotUpload: {
          credential: { accessKeyId: 'plan-test-snapshot-id', secretAccessKey: SNAPSHOT_UPLOAD_SECRET },
          recipient: { publicKey: Buffer.alloc(32, 7).toString('base64'), kid: 'ks-0123456789abcdef' },
        },
      },
      { running: false },
    ),
};

/** Two control planes holding the API's address with keepalived (cluster.apiEndpoint.virtualIp). */
export const VIRTUAL_IP = '10.231.7.250';
export const virtualIpVariant: PlanVariant = {
  edit(doc) {
    const hosts = doc['hosts'] as { roles: string[] }[];
    hosts[1]!.roles = ['control-plane'];
    cluster(doc, { apiEndpoint: { host: VIRTUAL_IP, virtualIp: { routerId: 77 } } });
  },
};

/** Every variant the empty hosts' recording must answer. */
export function emptyHostVariants(): PlanVariant[] {
  return [
    {},
    flagsVariant,
    settingsVariant(),
    haDockerVariant,
    upgradeVariant,
    restoreVariant(),
    certsRenewVariant,
    scheduledSnapshotUploadVariant,
    virtualIpVariant,
  ];
}

/** Files an earlier inventory's extraFiles left on the first control plane (scenario old-extra-files). */
export const OLD_EXTRA_FILES =
  'mkdir -p /etc/kubernetes/extra/kube-apiserver && echo old > /etc/kubernetes/extra/kube-apiserver/old-webhook.conf && echo old > /etc/kubernetes/extra/kube-apiserver/admission.yaml';
