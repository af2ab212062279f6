// Which files each control-plane component reads: their hashes go into its manifest, so a
// renewed certificate restarts exactly the components that use it. Resolved when the role is
// built, against the files the role writes: a name in this table that the role does not write
// would otherwise hash as nothing, and a change to the real file would restart nothing.
import { ENCRYPTION_CONFIG_PATH } from '../../src/kubernetes/secrets/encryption-keys.js';
import { AUDIT_POLICY_PATH } from '../../src/kubernetes/cluster/audit-policy.js';
import { ADMISSION_CONFIG_PATH } from '../../src/kubernetes/cluster/admission-config.js';
import { ETCD_OWN_PKI_DIR, ETCD_OWN_PKI_FILES } from '../../src/kubernetes/pki/etcd-key-folder.js';

/** Where relative names in the table live. */
export const PKI = '/etc/kubernetes/pki';

/** Per component, the files it reads: absolute paths, or names relative to PKI. */
export const COMPONENT_READS: Readonly<Record<string, readonly string[]>> = {
  etcd: ['etcd/ca.crt', ...ETCD_OWN_PKI_FILES.map((f) => `${ETCD_OWN_PKI_DIR}/${f}`)],
  'kube-apiserver': [
    'ca.crt',
    'apiserver.crt',
    'apiserver.key',
    'apiserver-kubelet-client.crt',
    'apiserver-kubelet-client.key',
    'apiserver-etcd-client.crt',
    'apiserver-etcd-client.key',
    'etcd/ca.crt',
    'front-proxy-ca.crt',
    'front-proxy-client.crt',
    'front-proxy-client.key',
    'sa.pub',
    'sa.key',
    ENCRYPTION_CONFIG_PATH,
    AUDIT_POLICY_PATH,
    ADMISSION_CONFIG_PATH,
  ],
  'kube-controller-manager': ['ca.crt', 'ca-signing.crt', 'ca.key', 'front-proxy-ca.crt', 'sa.key', '/etc/kubernetes/controller-manager.conf'],
  'kube-scheduler': ['/etc/kubernetes/scheduler.conf'],
};

/**
 * Per component, the absolute paths of the files it reads, each one of `written` (the paths
 * the role writes); throws naming every entry of `reads` that is not.
 */
export function componentReads(
  written: readonly string[],
  reads: Readonly<Record<string, readonly string[]>> = COMPONENT_READS,
): ReadonlyMap<string, readonly string[]> {
  const known = new Set(written);
  const unknown: string[] = [];
  const out = new Map<string, readonly string[]>();
  for (const [component, names] of Object.entries(reads)) {
    const paths = names.map((name) => (name.startsWith('/') ? name : `${PKI}/${name}`));
    for (const [i, path] of paths.entries()) if (!known.has(path)) unknown.push(`${component}: "${names[i]}" (${path})`);
    out.set(component, paths);
  }
  if (unknown.length > 0) {
    throw new Error(
      `control-plane role: the list of files each component's manifest hashes (COMPONENT_READS in roles/control-plane/component-reads.ts) names files the role does not write: ${unknown.join('; ')}. ` +
        `Fix the name, or add the file to controlPlaneFiles in roles/control-plane/index.ts`,
    );
  }
  return out;
}
