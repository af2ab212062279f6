// reset: what `kcluster reset` runs, and the last step of `kcluster remove-node`: every
// selected host loses what kcluster installed (see roles/reset/README.md).
import type { Playbook } from '../src/orchestrator/engine/types.js';
import { resetRole } from '../roles/reset/index.js';

export function resetPlaybook(): Playbook {
  return {
    name: 'reset',
    description: 'stop the kubelet and every pod, remove Kubernetes, containerd and everything kcluster installed',
    plays: [{ name: 'reset', hosts: 'all', roles: [resetRole()] }],
  };
}
