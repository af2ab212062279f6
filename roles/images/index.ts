// The images role: every container image this host runs (pause, kube-proxy, the CNI, CoreDNS,
// and on control planes etcd and the control-plane components), imported from the bundle
// into the runtime only when missing or different, and pinned. With source: release the
// runtime pulls images itself and this role has nothing to do. See README.md beside this file.
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { importImage } from '../../src/kubernetes/artifacts/tasks/import-image.js';
import { onlyOnHosts } from '../../src/orchestrator/tasks/only-on-hosts.js';

/** Imports running at once on one host (each its own upload and import). */
export const IMPORTS_AT_ONCE = 3;

export function imagesRole(inputs: ClusterInputs): Role {
  const runtime = inputs.inventory.cluster.containerRuntime;
  const archives = inputs.artifacts.filter((a) => a.type === 'image' && a.localPath !== undefined);
  return {
    name: 'images',
    tags: ['artifacts', 'images'],
    // containerd imports one archive mostly waiting on its own writes: three at once take
    // about the time of one and a half, and the control plane's images are the longest step
    // before its kubelet can start them.
    concurrentTasks: IMPORTS_AT_ONCE,
    tasks: archives.map((a) => onlyOnHosts(importImage(a, runtime, inputs.fanOut), a.hosts, `${a.name} does not run on this host`)),
  };
}
