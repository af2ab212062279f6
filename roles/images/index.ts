// The images role: every container image this host runs (pause, kube-proxy, the CNI, CoreDNS,
// and on control planes etcd and the control-plane components), imported from the bundle
// into the runtime only when missing or different, and pinned. With source: release the
// runtime pulls images itself and this role has nothing to do. See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { importImage } from '../../src/kubernetes/artifacts/tasks/import-image.js';
import { onlyOnHosts } from '../../src/orchestrator/tasks/only-on-hosts.js';

export function imagesRole(inputs: ClusterInputs): Role {
  const runtime = inputs.inventory.cluster.containerRuntime;
  const archives = inputs.artifacts.filter((a) => a.type === 'image' && a.localPath !== undefined);
  return {
    name: 'images',
    tags: ['artifacts', 'images'],
    tasks: archives.map((a) => onlyOnHosts(importImage(a, runtime), a.hosts, `${a.name} does not run on this host`)),
  };
}
