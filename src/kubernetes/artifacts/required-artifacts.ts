// What an inventory needs: every binary and image, the hosts that need each, and where
// binaries go. Pure: the inventory in, the list out (the same list `kcluster artifacts list`
// prints and the artifacts role installs). A piece needed by hosts of two architectures is two
// entries, one per architecture, each with its own hosts.
import type { HostSettings, Inventory } from '../../orchestrator/inventory/model.js';
import type { RequiredArtifact } from './artifact.js';
import { ARCHES, hostArch } from './arch.js';
import { componentVersionsFor } from './component-versions.js';
import { fanOutApplies } from './fan-out/fan-out-limits.js';

/** Where binaries land on hosts (runc in sbin like the OS packages; CNI plugins in /opt/cni/bin). */
export const INSTALL_DIRS = { bin: '/usr/local/bin', sbin: '/usr/local/sbin', cni: '/opt/cni/bin' } as const;

/** The control-plane images, run as static pods. */
export const CONTROL_PLANE_IMAGES = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export const CNI_PLUGINS = ['bridge', 'host-local', 'loopback', 'portmap'] as const;

const isControlPlane = (h: HostSettings): boolean => h.roles.includes('control-plane');
const runsEtcd = (h: HostSettings): boolean => h.roles.includes('etcd') || h.roles.includes('control-plane');

export function requiredArtifacts(inventory: Inventory): RequiredArtifact[] {
  const { cluster } = inventory;
  const v = componentVersionsFor(cluster.kubernetesVersion);
  const k8s = cluster.kubernetesVersion;
  const archOfHost = new Map(inventory.hosts.map((h) => [h.name, hostArch(h)]));
  const all = inventory.hosts.map((h) => h.name);
  const controlPlanes = inventory.hosts.filter(isControlPlane).map((h) => h.name);
  const etcdHosts = inventory.hosts.filter(runsEtcd).map((h) => h.name);
  const out: RequiredArtifact[] = [];
  /** The hosts split by architecture, in ARCHES order; none for an empty list. */
  const byArch = (hosts: readonly string[]) =>
    ARCHES.map((arch) => ({ arch, hosts: hosts.filter((h) => archOfHost.get(h) === arch) })).filter((g) => g.hosts.length > 0);
  const binary = (component: string, name: string, version: string, hosts: readonly string[], dir: string): void => {
    for (const { arch, hosts: same } of byArch(hosts)) out.push({ component, name, version, arch, type: 'binary', hosts: same, installPath: `${dir}/${name}` });
  };
  const image = (component: string, name: string, version: string, hosts: readonly string[]): void => {
    for (const { arch, hosts: same } of byArch(hosts)) out.push({ component, name, version, arch, type: 'image', hosts: same });
  };

  binary('kubernetes', 'kubelet', k8s, all, INSTALL_DIRS.bin);
  // kubectl on every node: the pod-network role reads the node's pod CIDR with the node's own credentials.
  binary('kubernetes', 'kubectl', k8s, all, INSTALL_DIRS.bin);
  if (cluster.containerRuntime === 'containerd') {
    for (const name of ['containerd', 'ctr', 'containerd-shim-runc-v2']) binary('containerd', name, v.containerd, all, INSTALL_DIRS.bin);
    binary('runc', 'runc', v.runc, all, INSTALL_DIRS.sbin);
  } else {
    binary('cri-dockerd', 'cri-dockerd', v.criDockerd, all, INSTALL_DIRS.bin);
  }
  binary('crictl', 'crictl', v.crictl, all, INSTALL_DIRS.bin);
  // Several control planes and no load balancer: every node balances across them itself.
  if (controlPlanes.length > 1 && cluster.apiEndpoint.host === undefined) binary('kcluster-apiproxy', 'kcluster-apiproxy', v.apiproxy, all, INSTALL_DIRS.bin);
  // The API's virtual IP: keepalived on every control plane, with kcluster-apiproxy -check as its health check.
  if (cluster.apiEndpoint.virtualIp !== undefined) {
    binary('keepalived', 'keepalived', v.keepalived, controlPlanes, INSTALL_DIRS.sbin);
    binary('kcluster-apiproxy', 'kcluster-apiproxy', v.apiproxy, controlPlanes, INSTALL_DIRS.bin);
  }
  // Hosts pass artifacts on to each other (cluster.artifacts.fanOut): the relay goes first, from the controller.
  if (fanOutApplies(inventory)) binary('kcluster-relay', 'kcluster-relay', v.relay, all, INSTALL_DIRS.bin);
  for (const name of CNI_PLUGINS) binary('cni-plugins', name, v.cniPlugins, all, INSTALL_DIRS.cni);
  // etcd runs as a static pod; etcdctl and etcdutl on its hosts are for backups and repairs.
  binary('etcd', 'etcdctl', v.etcd, etcdHosts, INSTALL_DIRS.bin);
  binary('etcd', 'etcdutl', v.etcd, etcdHosts, INSTALL_DIRS.bin);
  // The control planes copy their scheduled snapshots into the state store themselves.
  if (cluster.state?.scheduledSnapshots !== undefined && cluster.etcdSnapshots.enabled)
    binary('kcluster-snapshot-upload', 'kcluster-snapshot-upload', v.snapshotUpload, etcdHosts, INSTALL_DIRS.bin);

  image('pause', 'pause', v.pause, all);
  for (const name of CONTROL_PLANE_IMAGES) image('kubernetes', name, k8s, controlPlanes);
  image('etcd', 'etcd', v.etcd, etcdHosts);
  image('kubernetes', 'kube-proxy', k8s, all);
  image('coredns', 'coredns', v.coredns, all);
  if (cluster.cni === 'flannel') image('flannel', 'flannel', v.flannel, all);
  if (cluster.networkPolicy.enabled) image('kube-network-policies', 'kube-network-policies', v.kubeNetworkPolicies, all);
  if (cluster.metricsServer.enabled) image('metrics-server', 'metrics-server', v.metricsServer, all);
  if (cluster.localPathStorage.enabled) image('local-path-provisioner', 'local-path-provisioner', v.localPathProvisioner, all);
  return out;
}
