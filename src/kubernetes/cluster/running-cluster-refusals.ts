// What `apply` (and `certs renew`) refuse to do to a running cluster, decided from what it says
// about itself (running-cluster.ts) before anything is changed:
// - change its version: that would restart every kubelet at once, without drains (kcluster
//   upgrade does it in order);
// - add a control plane outside `apply` (certs renew, secrets rotate-key): apply adds it (an
//   etcd member added as a learner, one at a time), the others only converge what exists.
import type { RunningCluster } from './running-cluster.js';

export function versionChangeRefusal(running: RunningCluster, target: string, inventoryFile: string): string | undefined {
  const off = [...running.kubelets].filter(([, version]) => version !== target).map(([name, version]) => `${name} (${version})`);
  if (running.gitVersion === target && off.length === 0) return undefined;
  return (
    `${inventoryFile}: the cluster runs ${running.gitVersion}${off.length > 0 ? `, kubelets ${off.join(', ')}` : ''} but cluster.kubernetesVersion is ${target}: ` +
    `apply does not change versions; run kcluster upgrade -i ${inventoryFile} (rolling, with drains), or set the running version in the inventory`
  );
}

export function newControlPlaneRefusal(running: RunningCluster, controlPlanes: readonly string[], inventoryFile: string): string | undefined {
  if (running.etcdMembers.length === 0) return undefined;
  const added = controlPlanes.filter((name) => !running.etcdMembers.includes(name));
  if (added.length === 0) return undefined;
  return (
    `${inventoryFile}: ${added.join(', ')} ${added.length === 1 ? 'is a control plane' : 'are control planes'} in the inventory, but the running cluster's etcd members are ${running.etcdMembers.join(', ')}: ` +
    `this command does not add control planes. Nothing was changed. Run kcluster apply -i ${inventoryFile} first (it adds ${added.length === 1 ? 'it' : 'them'} to etcd one at a time), then this command again`
  );
}
