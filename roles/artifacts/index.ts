// The artifacts role: the binaries no service role owns (crictl, kubectl, the CNI plugins,
// etcdctl, etcdutl), streamed from the controller's verified cache and installed atomically
// with mode 0755. containerd, runc and kubelet are installed by their own roles, whose
// handlers restart the service when its binary changes. See README.md beside this file.
import type { PreparedArtifact } from '../../src/kubernetes/artifacts/artifact.js';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import type { AnyTask, Role } from '../../src/orchestrator/engine/types.js';
import { CLUSTER_MARKER } from '../../src/kubernetes/facts/preflight-facts.js';
import { installBinary } from '../../src/kubernetes/artifacts/tasks/install-binary.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { onlyOnHosts } from '../../src/orchestrator/tasks/only-on-hosts.js';

/** Binaries installed by a service role (component names). */
// Installed by the role that runs them, so that a new binary restarts its service.
const OWNED_BY_SERVICE_ROLES = new Set(['containerd', 'runc', 'cri-dockerd', 'kcluster-apiproxy', 'keepalived']);
const OWNED_NAMES = new Set(['kubelet']);

/** Install tasks for the binaries `pick` selects, each only on the hosts that need it. */
export function binaryTasks(inputs: ClusterInputs, pick: (a: PreparedArtifact) => boolean, notify?: readonly string[]): AnyTask[] {
  // kcluster-relay first: the other binaries may come from another host through it (cluster.artifacts.fanOut).
  const relayFirst = (a: PreparedArtifact): number => (a.component === 'kcluster-relay' ? 0 : 1);
  return inputs.artifacts
    .filter((a) => a.type === 'binary' && pick(a))
    .sort((a, b) => relayFirst(a) - relayFirst(b))
    .map((a) => onlyOnHosts(installBinary(a, notify, inputs.fanOut), a.hosts, `${a.name} is not needed on this host`));
}

export function artifactsRole(inputs: ClusterInputs): Role {
  return {
    name: 'artifacts',
    tags: ['artifacts'],
    tasks: [
      // The first change kcluster makes on a host: it now belongs to this cluster (preflight reads it).
      managedFile({ path: CLUSTER_MARKER, mode: 0o644, content: (ctx) => `${ctx.inventory.cluster.name}\n` }),
      ...binaryTasks(inputs, (a) => !OWNED_BY_SERVICE_ROLES.has(a.component) && !OWNED_NAMES.has(a.name)),
    ],
  };
}
