// The container runtime role the inventory chose: containerd (default) or Docker Engine with
// cri-dockerd.
import type { ClusterInputs } from '../src/kubernetes/cluster/cluster-inputs.js';
import type { Role } from '../src/orchestrator/engine/types.js';
import { containerdRole } from '../roles/containerd/index.js';
import { dockerRole } from '../roles/docker/index.js';

export const runtimeRole = (inputs: ClusterInputs): Role =>
  inputs.inventory.cluster.containerRuntime === 'docker' ? dockerRole(inputs) : containerdRole(inputs);
