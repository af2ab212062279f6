// Where the kubelet (and crictl) reach the container runtime the inventory chose, and the
// systemd unit that serves it.
import type { Inventory } from '../../orchestrator/inventory/model.js';

export interface RuntimeEndpoint {
  readonly endpoint: string;
  readonly service: string;
}

export function runtimeEndpointOf(inventory: Inventory): RuntimeEndpoint {
  return inventory.cluster.containerRuntime === 'docker'
    ? { endpoint: 'unix:///run/cri-dockerd.sock', service: 'cri-docker.service' }
    : { endpoint: 'unix:///run/containerd/containerd.sock', service: 'containerd.service' };
}
