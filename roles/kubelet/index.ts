// The kubelet role: the kubelet binary, the cluster CA, a kubeconfig with this node's own
// client certificate (CN=system:node:NAME, so the node authorizer limits it to its own node),
// its serving certificate, KubeletConfiguration, the systemd unit, the kernel settings pods
// need, and the service running. Restarts only when something it reads changed.
// See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { runtimeEndpointOf } from '../../src/kubernetes/cluster/runtime-endpoint.js';
import { isDualStack, nodeAddresses } from '../../src/kubernetes/cluster/dual-stack.js';
import type { HostContext, Role } from '../../src/orchestrator/engine/types.js';
import { cgroupVersion } from '../../src/orchestrator/facts/cgroup-version.js';
import { fileState } from '../../src/orchestrator/facts/file-state.js';
import { renderKubeconfig } from '../../src/kubernetes/pki/cluster-pki.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { factDerivedFile } from '../../src/orchestrator/tasks/fact-derived-file.js';
import { managedFile } from '../../src/orchestrator/tasks/managed-file.js';
import { sysctl } from '../../src/orchestrator/tasks/sysctl.js';
import { systemdService } from '../../src/orchestrator/tasks/systemd-service.js';
import { templateFile } from '../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { binaryTasks } from '../artifacts/index.js';
import { cgroupDriverOf, controlPlaneTaintOf, failSwapOnOf, kubeletConfigOf } from '../../src/kubernetes/cluster/node-vars.js';
import { proxyDropInTask } from '../../src/kubernetes/cluster/proxy-environment.js';
import { renderKubeletConfigFragment } from '../../src/kubernetes/cluster/kubelet-config.js';
import { featureGateList } from '../../src/kubernetes/cluster/component-args.js';
import { TLS_CIPHER_SUITES } from '../../src/kubernetes/cluster/tls-ciphers.js';
import { waitForKubeletSettled } from './kubelet-settled.js';
import { directory } from '../../src/orchestrator/tasks/directory.js';
import { MANIFESTS_DIR } from '../../src/kubernetes/facts/static-pods.js';
import { onlyOnHosts } from '../../src/orchestrator/tasks/only-on-hosts.js';

export const RESTART_KUBELET = 'restart kubelet';
const FORGET_ROTATED_CLIENT_CERTIFICATE = 'forget the client certificate the kubelet rotated';
const templateDir = join(packageRoot(), 'roles', 'kubelet', 'templates');
const SYSTEMD_RESOLV = '/run/systemd/resolve/resolv.conf';
export const CONTROL_PLANE_TAINT = 'node-role.kubernetes.io/control-plane:NoSchedule';

function pick<T>(map: ReadonlyMap<string, T>, host: string, what: string): T {
  const value = map.get(host);
  if (value === undefined) throw new Error(`${host}: no ${what} in the cluster PKI (is the host in the inventory?)`);
  return value;
}

export interface KubeletRoleOptions {
  /** Hosts whose kubelet this role configures but does not start (nor restart when stopped):
   * kubeletStartedRole starts it later in the run. See clusterPlaybook. */
  readonly startLater?: readonly string[];
}

const KUBELET_SERVICE = { name: 'kubelet.service', enabled: true, state: 'started' } as const;

export function kubeletRole(inputs: ClusterInputs, options: KubeletRoleOptions = {}): Role {
  const later = new Set(options.startLater ?? []);
  const startedNow = inputs.inventory.hosts.map((h) => h.name).filter((name) => !later.has(name));
  const renderer = createTemplateRenderer();
  const { pki, topology, inventory } = inputs;
  const controlPlanes = new Set(topology.controlPlanes.map((h) => h.name));
  const restart = [RESTART_KUBELET];
  const config = renderer.compile(join(templateDir, 'config.yaml.hbs'));
  const runtime = runtimeEndpointOf(inventory);
  return {
    name: 'kubelet',
    templateDir,
    tags: ['kubelet'],
    tasks: [
      // Pods route through the host and bridged traffic must pass iptables (kube-proxy, CNI).
      sysctl({ key: 'net.ipv4.ip_forward', value: '1', persistFile: '/etc/sysctl.d/90-kcluster-ip-forward.conf' }),
      sysctl({ key: 'net.bridge.bridge-nf-call-iptables', value: '1', module: 'br_netfilter', persistFile: '/etc/sysctl.d/90-kcluster-bridge-nf.conf' }),
      // The same for IPv6 in a dual-stack cluster (all.forwarding also stops the node from taking
      // router advertisements on interfaces with accept_ra 1: docs/users/dual-stack.md).
      ...(isDualStack(inventory.cluster)
        ? [
            sysctl({ key: 'net.ipv6.conf.all.forwarding', value: '1', persistFile: '/etc/sysctl.d/90-kcluster-ipv6-forwarding.conf' }),
            sysctl({
              key: 'net.bridge.bridge-nf-call-ip6tables',
              value: '1',
              module: 'br_netfilter',
              persistFile: '/etc/sysctl.d/90-kcluster-bridge-nf-ipv6.conf',
            }),
          ]
        : []),
      ...binaryTasks(inputs, (a) => a.name === 'kubelet', restart),
      managedFile({ path: '/etc/kubernetes/pki/ca.crt', mode: 0o644, content: () => pki.trust.ca, notify: restart }),
      managedFile({
        path: '/etc/kubernetes/kubelet.conf',
        mode: 0o600,
        // A new identity from kcluster (renewed, or another CA or API server) replaces the
        // kubelet's rotated one: it starts again from this file and renews at once.
        notify: [FORGET_ROTATED_CLIENT_CERTIFICATE, ...restart],
        content: (ctx) => {
          const own = pick(pki.kubelet, ctx.host.name, 'kubelet client certificate');
          return renderKubeconfig({
            clusterName: inventory.cluster.name,
            server: topology.apiServerUrl,
            caCert: pki.trust.ca,
            user: `system:node:${ctx.host.name}`,
            cert: own.cert,
            key: own.key,
          });
        },
      }),
      managedFile({
        path: '/var/lib/kubelet/pki/kubelet.crt',
        mode: 0o644,
        notify: restart,
        content: (ctx) => pick(pki.kubeletServing, ctx.host.name, 'kubelet serving certificate').cert,
      }),
      managedFile({
        path: '/var/lib/kubelet/pki/kubelet.key',
        mode: 0o600,
        notify: restart,
        content: (ctx) => pick(pki.kubeletServing, ctx.host.name, 'kubelet serving certificate').key,
      }),
      factDerivedFile({
        path: '/var/lib/kubelet/config.yaml',
        // CIS 4.1.9: the kubelet's configuration readable by root only.
        mode: 0o600,
        notify: restart,
        facts: () => ({ cgroup: cgroupVersion, resolved: fileState(SYSTEMD_RESOLV) }),
        content: (facts, ctx: HostContext) =>
          config({
            cgroupDriver: cgroupDriverOf(ctx),
            runtimeEndpoint: runtime.endpoint,
            dnsServiceIp: topology.dnsServiceIp,
            clusterDomain: inventory.cluster.clusterDomain,
            // systemd-resolved's stub (127.0.0.53) would make CoreDNS forward to itself.
            resolvConf: facts.resolved.exists ? SYSTEMD_RESOLV : '/etc/resolv.conf',
            failSwapOn: failSwapOnOf(ctx) ? 'true' : 'false',
            cgroupV1: facts.cgroup === 'v1',
            tlsCipherSuites: TLS_CIPHER_SUITES,
            featureGates: featureGateList(inventory.cluster.featureGates),
          }) + renderKubeletConfigFragment(kubeletConfigOf(ctx)),
      }),
      templateFile({
        path: '/etc/systemd/system/kubelet.service',
        template: join(templateDir, 'kubelet.service.hbs'),
        // CIS 4.1.1: the unit file readable by root only.
        mode: 0o600,
        renderer,
        notify: restart,
        invalidates: ['systemd:*'],
        data: (ctx: HostContext) => ({
          nodeName: ctx.host.name,
          // "v4,v6" in a dual-stack cluster: the Node gets an InternalIP of each family.
          nodeIp: nodeAddresses(ctx.host, inventory.cluster).join(','),
          runtimeService: runtime.service,
          registerTaints: controlPlanes.has(ctx.host.name) && topology.workers.length > 0 && controlPlaneTaintOf(ctx) ? CONTROL_PLANE_TAINT : '',
        }),
      }),
      proxyDropInTask(inventory, 'kubelet.service', restart, ['kubelet', 'proxy']),
      // The kubelet watches its staticPodPath with inotify only when the folder exists as it
      // starts; otherwise it finds manifests written later at its next periodic scan
      // (fileCheckFrequency, 20 s), which would hold every control plane back that long.
      directory({ path: MANIFESTS_DIR, mode: 0o755 }),
      onlyOnHosts(systemdService(KUBELET_SERVICE), startedNow, 'started once the API server answers'),
    ],
    handlers: [
      {
        name: FORGET_ROTATED_CLIENT_CERTIFICATE,
        run: async (ctx) => {
          await execChecked(ctx.connection, sh`rm -f /var/lib/kubelet/pki/kubelet-client-*.pem`, { become: true, label: FORGET_ROTATED_CLIENT_CERTIFICATE });
        },
      },
      {
        name: RESTART_KUBELET,
        run: async (ctx) => {
          // A kubelet left stopped for later is not started by a change of its files.
          const restart = later.has(ctx.host.name) ? sh`systemctl try-restart kubelet.service` : sh`systemctl restart kubelet.service`;
          await execChecked(ctx.connection, sh`systemctl daemon-reload && ${restart}`, { become: true, label: RESTART_KUBELET });
          await waitForKubeletSettled(ctx);
        },
      },
    ],
  };
}

/**
 * The kubelet started (and enabled) on the hosts kubeletRole left for later. On a fresh install
 * the workers' kubelets start once the API server answers: a kubelet started before keeps
 * failing to list the cluster's Services, backs off (up to 30 s between tries), and refuses to
 * start any pod until it has listed them once ("services have not yet been read at least
 * once"), which held kube-proxy and flannel back on a worker until its next try.
 */
export function kubeletStartedRole(): Role {
  return { name: 'kubelet-started', tags: ['kubelet'], tasks: [systemdService(KUBELET_SERVICE)] };
}
