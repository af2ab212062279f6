// etcdctl on a control plane, against its local member, authenticated with the health-check
// client certificate.
import { sh } from '../../orchestrator/ssh/quote.js';

export const ETCDCTL = sh`ETCDCTL_API=3 /usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key`;
