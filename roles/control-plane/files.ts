// Every file a control plane gets from the cluster PKI and the controller: certificates and
// keys, the kubeconfigs of the admin, controller-manager and scheduler (each at the local API
// server), the encryption, audit and admission configurations; as (path, mode, content for
// this host), so the manifests can hash exactly what each component reads.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import type { HostContext } from '../../src/orchestrator/engine/types.js';
import type { CertAndKey } from '../../src/kubernetes/pki/cluster-pki.js';
import { renderKubeconfig } from '../../src/kubernetes/pki/cluster-pki.js';
import { ENCRYPTION_CONFIG_PATH, renderEncryptionConfig } from '../../src/kubernetes/secrets/encryption-keys.js';
import { AUDIT_POLICY_PATH } from '../../src/kubernetes/cluster/audit-policy.js';
import { ADMISSION_CONFIG_PATH, renderAdmissionConfig } from '../../src/kubernetes/cluster/admission-config.js';
import { ETCD_OWN_PKI_DIR } from '../../src/kubernetes/pki/etcd-key-folder.js';
import { ETCD_USER } from '../../src/kubernetes/etcd/etcd-user.js';
import { PKI } from './component-reads.js';

export interface ControlPlaneFile {
  readonly path: string;
  readonly mode: number;
  readonly owner?: string;
  readonly secret?: boolean;
  readonly content: (ctx: HostContext) => string;
}

function own(map: ReadonlyMap<string, CertAndKey>, host: string, what: string): CertAndKey {
  const found = map.get(host);
  if (!found) throw new Error(`${host}: no ${what} in the cluster PKI`);
  return found;
}

/** Every file a control-plane host gets, as (path, mode, content for this host). */
export function controlPlaneFiles(inputs: ClusterInputs): ControlPlaneFile[] {
  const { pki, inventory } = inputs;
  const pair = (name: string, value: CertAndKey | ((ctx: HostContext) => CertAndKey), keyOwner?: string) => {
    const get: (ctx: HostContext) => CertAndKey = typeof value === 'function' ? value : () => value;
    const stem = name.startsWith('/') ? name : `${PKI}/${name}`;
    return [
      { path: `${stem}.crt`, mode: 0o644, content: (ctx: HostContext) => get(ctx).cert },
      { path: `${stem}.key`, mode: 0o600, ...(keyOwner ? { owner: keyOwner } : {}), content: (ctx: HostContext) => get(ctx).key },
    ];
  };
  const local = (ctx: HostContext): string => `https://${nodeAddress(ctx.host)}:${inputs.topology.apiPort}`;
  const kubeconfig = (file: string, user: string, creds: CertAndKey, server: (ctx: HostContext) => string) => ({
    path: `/etc/kubernetes/${file}`,
    mode: 0o600,
    content: (ctx: HostContext) =>
      renderKubeconfig({ clusterName: inventory.cluster.name, server: server(ctx), caCert: pki.trust.ca, user, cert: creds.cert, key: creds.key }),
  });
  return [
    // Each CA's .crt is what verifies (its trust bundle: during a rotation both CAs, the signing
    // one first); its .key the signing key. The controller-manager signs with ca-signing.crt,
    // since its signer takes one certificate, never a bundle.
    ...pair('ca', () => ({ cert: pki.trust.ca, key: pki.ca.key })),
    { path: `${PKI}/ca-signing.crt`, mode: 0o644, content: () => pki.ca.cert },
    ...pair('front-proxy-ca', () => ({ cert: pki.trust.frontProxyCa, key: pki.frontProxyCa.key })),
    ...pair('etcd/ca', () => ({ cert: pki.trust.etcdCa, key: pki.etcdCa.key })),
    ...pair('apiserver', pki.apiServer),
    ...pair('apiserver-kubelet-client', pki.apiServerKubeletClient),
    ...pair('apiserver-etcd-client', pki.apiServerEtcdClient),
    ...pair('front-proxy-client', pki.frontProxyClient),
    ...pair('etcd/healthcheck-client', pki.etcdHealthcheckClient),
    // etcd reads its own keys as the etcd user, from its own folder.
    ...pair(`${ETCD_OWN_PKI_DIR}/server`, (ctx) => own(pki.etcdServer, ctx.host.name, 'etcd server certificate'), ETCD_USER),
    ...pair(`${ETCD_OWN_PKI_DIR}/peer`, (ctx) => own(pki.etcdPeer, ctx.host.name, 'etcd peer certificate'), ETCD_USER),
    { path: `${PKI}/sa.key`, mode: 0o600, content: () => pki.serviceAccount.privateKey },
    { path: `${PKI}/sa.pub`, mode: 0o644, content: () => pki.serviceAccount.publicKey },
    kubeconfig('admin.conf', 'kubernetes-admin', pki.admin, local),
    kubeconfig('controller-manager.conf', 'system:kube-controller-manager', pki.controllerManager, local),
    kubeconfig('scheduler.conf', 'system:kube-scheduler', pki.scheduler, local),
    { path: ENCRYPTION_CONFIG_PATH, mode: 0o600, secret: true, content: () => renderEncryptionConfig(inputs.encryption) },
    { path: AUDIT_POLICY_PATH, mode: 0o600, content: () => inputs.auditPolicy },
    { path: ADMISSION_CONFIG_PATH, mode: 0o600, content: () => renderAdmissionConfig(inventory.cluster.podSecurity) },
  ];
}
