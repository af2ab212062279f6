// Where a control plane keeps etcd's own keys, and where kcluster kept them before.
/**
 * etcd's own server and peer certificates and keys, in a 0700 folder the etcd user owns: a
 * non-root etcd must read its keys, and /etc/kubernetes/pki stays root's alone (CIS 1.1.19).
 * The etcd CA and the clients' certificates stay in /etc/kubernetes/pki/etcd.
 */
export const ETCD_OWN_PKI_DIR = '/etc/kubernetes/etcd';
/** The files in it (as in the former folder). */
export const ETCD_OWN_PKI_FILES = ['server.crt', 'server.key', 'peer.crt', 'peer.key'] as const;
/** Where kcluster kept etcd's own keys before: removed once etcd runs on the new ones. */
export const ETCD_OWN_PKI_FORMER_DIR = '/etc/kubernetes/pki/etcd';
