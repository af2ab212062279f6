// The addons role, run once per cluster on the first control plane: cluster RBAC, kube-proxy,
// the CNI (flannel by default; none when cluster.cni is none), CoreDNS (unless the playbook
// applies it later, see AddonsRoleOptions), the NetworkPolicy agent kube-network-policies
// (cluster.networkPolicy), metrics-server (cluster.metricsServer) and the default
// StorageClass (cluster.localPathStorage), each deleted when turned off, applied with
// server-side apply through the local API server (addon-task.ts). Each addon is re-applied
// only when its rendered manifest changed since kcluster last applied it (sha256 and text recorded in the
// ConfigMap kube-system/kcluster-addons; `--check --diff` shows the text that changes). Last,
// every Secret is checked in etcd to be encrypted with the current key, and rewritten when it is
// not (secrets-encrypted.ts). See README.md beside this file.
import { createHash } from 'node:crypto';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { certificateSubjectCn } from '../../src/kubernetes/pki/cluster-pki.js';
import { kubeProxyConntrackMaxPerCoreOf } from '../../src/kubernetes/cluster/node-vars.js';
import { featureGateList } from '../../src/kubernetes/cluster/component-args.js';
import { secretsEncryptedTask } from './secrets-encrypted.js';
import {
  addonCommonData,
  addonTask,
  coreDnsAddonTask,
  localPathStorageAddonTask,
  metricsServerAddonTask,
  networkPolicyAddonTask,
  templateDir,
} from './addon-task.js';
import { join } from 'node:path';
import type { Role } from '../../src/orchestrator/engine/types.js';
import { renderKubeProxyConfigFragment } from '../../src/kubernetes/cluster/kube-proxy-config.js';

export interface AddonsRoleOptions {
  /** CoreDNS too (upgrade). The cluster playbook applies it later, in addons-running (running.ts),
   * once kube-proxy and the pod network run on every node. */
  readonly coreDns: boolean;
}

export function addonsRole(inputs: ClusterInputs, options: AddonsRoleOptions = { coreDns: true }): Role {
  const renderer = createTemplateRenderer();
  const { inventory, topology } = inputs;
  const template = (file: string) => renderer.compile(join(templateDir, file));
  const rbac = template('cluster-rbac.yaml.hbs');
  const kubeProxy = template('kube-proxy.yaml.hbs');
  const flannel = template('flannel.yaml.hbs');
  const common = addonCommonData(inputs);
  const tasks = [
    addonTask('cluster-rbac', () => rbac({ apiServerKubeletClientUser: certificateSubjectCn(inputs.pki.apiServerKubeletClient.cert) })),
    addonTask('kube-proxy', (ctx) => {
      const config = {
        conntrackMaxPerCore: String(kubeProxyConntrackMaxPerCoreOf(ctx) ?? ''),
        featureGates: featureGateList(inventory.cluster.featureGates),
        mode: inventory.cluster.kubeProxy.mode,
        operatorConfig: renderKubeProxyConfigFragment(inventory.cluster.kubeProxy.config),
        // Only in a dual-stack cluster, so that the hash of an IPv4 one's config stays as it was.
        ...(inventory.cluster.ipv6 ? { ipv6PodCIDR: inventory.cluster.ipv6.podCIDR } : {}),
      };
      const configSha256 = createHash('sha256')
        .update(JSON.stringify([common, config]))
        .digest('hex');
      return kubeProxy({ ...common, ...config, image: imageReference(inputs, 'kube-proxy'), configSha256 });
    }),
    ...(inventory.cluster.cni === 'flannel'
      ? [
          addonTask('flannel', () =>
            flannel({
              ...common,
              image: imageReference(inputs, 'flannel'),
              apiServerHost: topology.apiEndpointHost,
              apiServerPort: topology.apiServerPort,
              enableNFTables: inventory.cluster.kubeProxy.mode === 'nftables',
              ipv6PodCIDR: inventory.cluster.ipv6?.podCIDR ?? '',
            }),
          ),
        ]
      : []),
    // After the pod network; addons-running waits for it on every node (addons README).
    networkPolicyAddonTask(inputs),
    ...(options.coreDns ? [coreDnsAddonTask(inputs)] : []),
    // Not waited for: nothing kcluster does needs the metrics API (addons README).
    metricsServerAddonTask(inputs),
    // Not waited for either: a claim waits for its pod, which waits for the provisioner.
    localPathStorageAddonTask(inputs),
    secretsEncryptedTask(inputs.encryption),
  ];
  return { name: 'addons', templateDir, tags: ['addons'], tasks };
}
