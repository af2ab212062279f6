// kubectl on a control plane, with the admin kubeconfig kcluster writes there: the one prefix
// the roles and facts use to reach the API server from a host.
import { sh, type ShellCommand } from '../../orchestrator/ssh/quote.js';

export const ADMIN_KUBECONFIG = '/etc/kubernetes/admin.conf';

/** `kubectl --kubeconfig=/etc/kubernetes/admin.conf --request-timeout=Ns`, to splice into `sh`. */
export function adminKubectl(requestTimeoutSeconds: number): ShellCommand {
  return sh`/usr/local/bin/kubectl --kubeconfig=${ADMIN_KUBECONFIG} --request-timeout=${requestTimeoutSeconds}s`;
}
