// etcdctl on a control plane, against its local member, authenticated with the health-check
// client certificate. No ETCDCTL_API: v3 is etcdctl's only API since 3.4, and 3.6 warns about
// the variable on stderr (which broke parsers that read both streams).
import { sh } from '../../orchestrator/ssh/quote.js';

export const ETCD_CLIENT_CERT = '/etc/kubernetes/pki/etcd/healthcheck-client.crt';

/** This control plane's own etcd member. */
export const LOCAL_ETCD = 'https://127.0.0.1:2379';

export const ETCDCTL = etcdctlAt([LOCAL_ETCD]);

/**
 * etcdctl on a control plane against other members (a control plane joining the cluster has
 * no member of its own yet; a learner cannot answer for the cluster).
 */
export function etcdctlAt(endpoints: readonly string[]) {
  return sh`/usr/local/bin/etcdctl --endpoints=${endpoints.join(',')} --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=${ETCD_CLIENT_CERT} --key=/etc/kubernetes/pki/etcd/healthcheck-client.key`;
}
