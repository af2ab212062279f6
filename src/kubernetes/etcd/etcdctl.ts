// etcdctl on a control plane, against its local member, authenticated with the health-check
// client certificate. No ETCDCTL_API: v3 is etcdctl's only API since 3.4, and 3.6 warns about
// the variable on stderr (which broke parsers that read both streams).
import { sh } from '../../orchestrator/ssh/quote.js';

export const ETCDCTL = sh`/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key`;
