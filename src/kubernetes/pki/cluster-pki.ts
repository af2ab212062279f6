// The cluster PKI, generated on the controller and kept in <stateDir>/pki like kubeadm's
// /etc/kubernetes/pki: three CAs (cluster, etcd, front proxy), the service-account key pair,
// and every leaf certificate the control plane, etcd members, kubelets and the admin use.
// Reused on every run; a certificate is replaced only when missing, unreadable, not matching
// its key, not signed by its current CA, within 30 days of expiry, or lacking a name, address
// or subject it needs (`changes` says which and why). Keys never leave files of mode 0600.
// `renewLeaves` (kcluster certs renew) replaces every leaf now; CAs and sa.key/sa.pub never.
// During a CA rotation (ca-rotation.ts) each rotating CA's trust bundle also holds the other CA,
// and from its reissue phase on the new CA signs, so every leaf it signed before is reissued.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { formatIpv4, parseCidr } from '../inventory/cidr.js';
import { canonicalIp, isIpv6 } from '../inventory/ipv6.js';
import { CA_DAYS, LEAF_DAYS, type CertificateRequest } from './certificate-request.js';
import { newRsaKeyPair } from './key-pair.js';
import { PkiFiles } from './pki-files.js';
import { whyReplace } from './reuse-check.js';
import { alsoTrusted, pendingSigningCas, readCaRotation, switchSigningCas, trustBundle, verifyingFile, type CaFile } from './ca-rotation.js';
import { signCertificate } from './sign-certificate.js';

export interface PkiNode {
  readonly name: string;
  readonly address: string;
  /** Its IPv6 address in a dual-stack cluster: in its kubelet's serving certificate, and the API server's on a control plane. */
  readonly ipv6Address?: string;
}

export interface PkiSpec {
  readonly clusterName: string;
  /** Also the etcd members (stacked etcd). */
  readonly controlPlanes: readonly PkiNode[];
  /** Every node, control planes included. */
  readonly nodes: readonly PkiNode[];
  readonly apiEndpoint: { readonly host: string; readonly port: number };
  readonly serviceCIDR: string;
  readonly clusterDomain: string;
  readonly extraApiServerSans?: readonly string[];
}

export interface CertAndKey {
  readonly cert: string;
  readonly key: string;
}

/** What verifies each CA's certificates: its signing certificate, and during a rotation the other one too (PEM bundles). */
export interface TrustBundles {
  readonly ca: string;
  readonly etcdCa: string;
  readonly frontProxyCa: string;
}

export interface ClusterPki {
  /** The signing CAs (cert and key). Whatever verifies a certificate uses `trust` instead. */
  readonly ca: CertAndKey;
  readonly etcdCa: CertAndKey;
  readonly frontProxyCa: CertAndKey;
  readonly trust: TrustBundles;
  readonly serviceAccount: { readonly publicKey: string; readonly privateKey: string };
  readonly apiServer: CertAndKey;
  readonly apiServerKubeletClient: CertAndKey;
  readonly apiServerEtcdClient: CertAndKey;
  readonly frontProxyClient: CertAndKey;
  readonly etcdHealthcheckClient: CertAndKey;
  readonly etcdServer: ReadonlyMap<string, CertAndKey>;
  readonly etcdPeer: ReadonlyMap<string, CertAndKey>;
  /** CN=kubernetes-admin, O=system:masters: full access without any RBAC binding. */
  readonly admin: CertAndKey;
  readonly controllerManager: CertAndKey;
  readonly scheduler: CertAndKey;
  readonly kubeProxy: CertAndKey;
  /** Per node: CN=system:node:NAME, O=system:nodes (client). */
  readonly kubelet: ReadonlyMap<string, CertAndKey>;
  /** Per node: the kubelet's serving certificate, signed by the cluster CA. */
  readonly kubeletServing: ReadonlyMap<string, CertAndKey>;
  /** What this call generated and why; empty when everything was reused. */
  readonly changes: readonly string[];
}

const isIpv4 = (value: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(value);
const isIp = (value: string): boolean => isIpv4(value) || isIpv6(value);
const unique = (values: readonly string[]): string[] => [...new Set(values)];
function split(values: readonly string[]): { dnsNames: string[]; ipAddresses: string[] } {
  return { dnsNames: unique(values.filter((v) => !isIp(v))), ipAddresses: unique(values.filter(isIp).map(canonicalIp)) };
}
/** The node's addresses for its certificates: the IPv6 one only in a dual-stack cluster. */
const addressesOf = (n: PkiNode): string[] => [n.address, ...(n.ipv6Address !== undefined ? [n.ipv6Address] : [])];

function firstServiceIp(serviceCIDR: string): string {
  const cidr = parseCidr(serviceCIDR);
  if (typeof cidr === 'string') throw new Error(`serviceCIDR ${serviceCIDR}: ${cidr}`);
  return formatIpv4(cidr.base + 1);
}

/** Every leaf certificate the spec needs, by file stem. */
export function leafRequests(spec: PkiSpec): CertificateRequest[] {
  const leaf = (
    file: string,
    signer: string,
    commonName: string,
    use: CertificateRequest['use'],
    more: Partial<CertificateRequest> = {},
  ): CertificateRequest => ({ file, signer, commonName, use, days: LEAF_DAYS, ...more });
  const domain = spec.clusterDomain;
  const apiNames = split([
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    `kubernetes.default.svc.${domain}`,
    'localhost',
    ...spec.controlPlanes.flatMap((n) => [n.name, ...addressesOf(n)]),
    spec.apiEndpoint.host,
    firstServiceIp(spec.serviceCIDR),
    '127.0.0.1',
    ...(spec.extraApiServerSans ?? []),
  ]);
  return [
    leaf('apiserver', 'ca', 'kube-apiserver', 'server', apiNames),
    leaf('apiserver-kubelet-client', 'ca', 'kube-apiserver-kubelet-client', 'client'),
    leaf('apiserver-etcd-client', 'etcd/ca', 'kube-apiserver-etcd-client', 'client'),
    leaf('front-proxy-client', 'front-proxy-ca', 'front-proxy-client', 'client'),
    leaf('etcd/healthcheck-client', 'etcd/ca', 'kube-etcd-healthcheck-client', 'client'),
    ...spec.controlPlanes.flatMap((n) => [
      leaf(`etcd/server-${n.name}`, 'etcd/ca', n.name, 'server-and-client', split([n.name, 'localhost', n.address, '127.0.0.1'])),
      leaf(`etcd/peer-${n.name}`, 'etcd/ca', n.name, 'server-and-client', split([n.name, 'localhost', n.address, '127.0.0.1'])),
    ]),
    leaf('admin', 'ca', 'kubernetes-admin', 'client', { organizations: ['system:masters'] }),
    leaf('controller-manager', 'ca', 'system:kube-controller-manager', 'client'),
    leaf('scheduler', 'ca', 'system:kube-scheduler', 'client'),
    leaf('kube-proxy', 'ca', 'system:kube-proxy', 'client'),
    ...spec.nodes.flatMap((n) => [
      leaf(`kubelet/${n.name}`, 'ca', `system:node:${n.name}`, 'client', { organizations: ['system:nodes'] }),
      leaf(`kubelet-serving/${n.name}`, 'ca', `system:node:${n.name}`, 'server', { organizations: ['system:nodes'], ...split([n.name, ...addressesOf(n)]) }),
    ]),
  ];
}

export const CA_REQUESTS: readonly CertificateRequest[] = [
  { file: 'ca', commonName: 'kubernetes', use: 'ca', days: CA_DAYS },
  { file: 'etcd/ca', commonName: 'etcd-ca', use: 'ca', days: CA_DAYS },
  { file: 'front-proxy-ca', commonName: 'front-proxy-ca', use: 'ca', days: CA_DAYS },
];

export interface EnsurePkiOptions {
  /** Replace every leaf certificate and key now, whatever their state (never a CA or sa.key). */
  readonly renewLeaves?: boolean;
  /**
   * A --check or --list-tags run: what is missing is made in memory and the state folder is not
   * written (an interrupted CA rotation's switch to the new CAs included); the plan shows what a
   * first run would create.
   */
  readonly inMemory?: boolean;
}

/** Keep or (re)create one certificate and its key; returns the pair and what happened. */
async function ensureCertificate(
  files: PkiFiles,
  request: CertificateRequest,
  signer: CertAndKey | undefined,
  renew = false,
): Promise<{ pair: CertAndKey; change?: string }> {
  const cert = await files.read(`${request.file}.crt`);
  const key = await files.read(`${request.file}.key`);
  let reason: string | undefined = cert === undefined || key === undefined ? 'created' : renew ? 'renewed on request' : undefined;
  if (reason === undefined) {
    reason = whyReplace(request, cert!, key!, signer ? new X509Certificate(signer.cert) : undefined);
    if (reason === undefined) return { pair: { cert: cert!, key: key! } };
    if (request.use === 'ca' && !/expires/.test(reason)) {
      throw new Error(
        `${files.path(`${request.file}.crt`)}: ${reason}: kcluster does not replace a CA by itself: kcluster certs rotate-ca replaces it with no downtime (or restore ${request.file}.crt and ${request.file}.key from your backup of the state folder)`,
      );
    }
  }
  const pair = await newRsaKeyPair();
  const certPem = signCertificate(request, pair.publicKey, pair.privateKey, signer ? { certPem: signer.cert, keyPem: signer.key } : undefined);
  await files.write(`${request.file}.key`, pair.privateKey, 0o600);
  await files.write(`${request.file}.crt`, certPem, 0o644);
  return { pair: { cert: certPem, key: pair.privateKey }, change: `${request.file}: ${reason}` };
}

async function ensureServiceAccountKeys(files: PkiFiles): Promise<{ keys: { publicKey: string; privateKey: string }; change?: string }> {
  const privateKey = await files.read('sa.key');
  const publicKey = await files.read('sa.pub');
  if (privateKey !== undefined && publicKey !== undefined) {
    try {
      const derived = createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'pem' }).toString();
      if (derived === createPublicKey(publicKey).export({ type: 'spki', format: 'pem' }).toString()) return { keys: { publicKey, privateKey } };
    } catch {
      // unreadable: replaced below
    }
    throw new Error(
      `${files.path('sa.key')} and sa.pub do not form a key pair: delete both to create new ones (every service-account token then becomes invalid)`,
    );
  }
  const pair = await newRsaKeyPair();
  await files.write('sa.key', pair.privateKey, 0o600);
  await files.write('sa.pub', pair.publicKey, 0o644);
  return { keys: pair, change: 'sa: created' };
}

export async function ensureClusterPki(stateDir: string, spec: PkiSpec, options: EnsurePkiOptions = {}): Promise<ClusterPki> {
  const files = new PkiFiles(join(stateDir, 'pki'), { inMemory: options.inMemory === true });
  const changes: string[] = [];
  const rotation = await readCaRotation(stateDir);
  // From the reissue phase on the new CA signs: finish a switch an interrupted run began.
  // In memory the switch is only read as it would be: the new pair in place, the old one (still
  // in the PKI folder, where the switch would move it to previous/) as the other trusted key.
  const switchedInMemory = new Map<string, string>();
  if (rotation !== undefined && (rotation.phase === 'reissue' || rotation.phase === 'drop-old')) {
    if (options.inMemory === true)
      for (const [name, content] of await pendingSigningCas(stateDir, rotation.cas)) {
        const old = await files.read(name);
        if (old !== undefined) switchedInMemory.set(name, old);
        files.overlay(name, content);
      }
    else await switchSigningCas(stateDir, rotation.cas);
  }
  const otherTrusted = async (ca: CaFile | 'sa'): Promise<string | undefined> => {
    const other = await alsoTrusted(stateDir, rotation, ca);
    if (other === undefined) return undefined;
    return switchedInMemory.get(verifyingFile(ca)) ?? other;
  };
  const cas = new Map<string, CertAndKey>();
  for (const request of CA_REQUESTS) {
    const { pair, change } = await ensureCertificate(files, request, undefined);
    cas.set(request.file, pair);
    if (change) changes.push(change);
  }
  const sa = await ensureServiceAccountKeys(files);
  if (sa.change) changes.push(sa.change);
  const leaves = new Map<string, CertAndKey>();
  // Key generation dominates: leaves are made in parallel (libuv's thread pool).
  await Promise.all(
    leafRequests(spec).map(async (request) => {
      const { pair, change } = await ensureCertificate(files, request, cas.get(request.signer!), options.renewLeaves === true);
      leaves.set(request.file, pair);
      if (change) changes.push(change);
    }),
  );
  const get = (file: string): CertAndKey => leaves.get(file)!;
  const bundle = async (ca: CaFile): Promise<string> => trustBundle(cas.get(ca)!.cert, await otherTrusted(ca));
  const perNode = (prefix: string, nodes: readonly PkiNode[]): Map<string, CertAndKey> => new Map(nodes.map((n) => [n.name, get(`${prefix}${n.name}`)]));
  return {
    ca: cas.get('ca')!,
    etcdCa: cas.get('etcd/ca')!,
    frontProxyCa: cas.get('front-proxy-ca')!,
    trust: { ca: await bundle('ca'), etcdCa: await bundle('etcd/ca'), frontProxyCa: await bundle('front-proxy-ca') },
    // During a key rotation the API servers verify tokens with both public keys (one file).
    serviceAccount: { privateKey: sa.keys.privateKey, publicKey: trustBundle(sa.keys.publicKey, await otherTrusted('sa')) },
    apiServer: get('apiserver'),
    apiServerKubeletClient: get('apiserver-kubelet-client'),
    apiServerEtcdClient: get('apiserver-etcd-client'),
    frontProxyClient: get('front-proxy-client'),
    etcdHealthcheckClient: get('etcd/healthcheck-client'),
    etcdServer: perNode('etcd/server-', spec.controlPlanes),
    etcdPeer: perNode('etcd/peer-', spec.controlPlanes),
    admin: get('admin'),
    controllerManager: get('controller-manager'),
    scheduler: get('scheduler'),
    kubeProxy: get('kube-proxy'),
    kubelet: perNode('kubelet/', spec.nodes),
    kubeletServing: perNode('kubelet-serving/', spec.nodes),
    changes: changes.sort(),
  };
}

/** A kubeconfig with the CA, client certificate and key embedded. */
/**
 * A kubeconfig for one user. `alternatives`: more servers of the same cluster, each its own
 * cluster entry `<clusterName>-<name>` and context `<user>@<clusterName>-<name>` (the current
 * context stays the main server's).
 */
export function renderKubeconfig(o: {
  clusterName: string;
  server: string;
  caCert: string;
  user: string;
  cert: string;
  key: string;
  alternatives?: readonly { name: string; server: string }[];
}): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const context = `${o.user}@${o.clusterName}`;
  const entries = [
    { cluster: o.clusterName, server: o.server },
    ...(o.alternatives ?? []).map((a) => ({ cluster: `${o.clusterName}-${a.name}`, server: a.server })),
  ];
  return stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: entries.map((e) => ({ name: e.cluster, cluster: { server: e.server, 'certificate-authority-data': b64(o.caCert) } })),
      users: [{ name: o.user, user: { 'client-certificate-data': b64(o.cert), 'client-key-data': b64(o.key) } }],
      contexts: entries.map((e) => ({ name: `${o.user}@${e.cluster}`, context: { cluster: e.cluster, user: o.user } })),
      'current-context': context,
    },
    { lineWidth: 0 },
  );
}

/** The CN of a certificate's subject (RBAC names users by it). */
export function certificateSubjectCn(certPem: string): string {
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(new X509Certificate(certPem).subject)?.[1];
  if (cn === undefined) throw new Error('certificate without a CN');
  return cn;
}
