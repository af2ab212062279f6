// The addons role, run once per cluster on the first control plane: cluster RBAC, kube-proxy,
// the CNI (flannel by default; none when cluster.cni is none) and CoreDNS, applied with
// server-side apply through the local API server. Each addon is re-applied only when its
// rendered manifest changed since kcluster last applied it (sha256 and text recorded in the
// ConfigMap kube-system/kcluster-addons; `--check --diff` shows the text that changes). Last,
// every Secret is checked in etcd to be encrypted with the current key, and rewritten when it is
// not (secrets-encrypted.ts). See README.md beside this file.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import type { HostContext, Role, Task } from '../../src/orchestrator/engine/types.js';
import { addonRecord, addonRecordManifest } from '../../src/kubernetes/facts/addon-record.js';
import { planAddon, type AddonPayload } from './addon-plan.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { certificateSubjectCn } from '../../src/kubernetes/pki/cluster-pki.js';
import { kubeProxyConntrackMaxPerCoreOf } from '../../src/kubernetes/cluster/node-vars.js';
import { featureGateList } from '../../src/kubernetes/cluster/component-args.js';
import { secretsEncryptedTask } from './secrets-encrypted.js';
import { corednsForwarding } from './coredns-forwarding.js';
import { renderKubeProxyConfigFragment } from '../../src/kubernetes/cluster/kube-proxy-config.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';

const templateDir = join(packageRoot(), 'roles', 'addons', 'templates');

function addonTask(name: string, render: (ctx: HostContext) => string): Task<{ record: typeof addonRecord }, AddonPayload> {
  return {
    name: `addon ${name}`,
    tags: ['addons', name],
    facts: () => ({ record: addonRecord }),
    plan: (facts, ctx) => planAddon(name, render(ctx), facts.record),
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(60);
      await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=kcluster -f -`, { become: true, stdin: change.payload.manifest, label: `apply ${name}` });
      // Each addon owns its own keys of the record (one field manager per addon).
      const record = addonRecordManifest(name, change.payload.sha256, change.payload.manifest);
      await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=${`kcluster-addon-${name}`} -f -`, { become: true, stdin: record, label: `record ${name}` });
    },
    invalidates: ['addon-record'],
  };
}

export function addonsRole(inputs: ClusterInputs): Role {
  const renderer = createTemplateRenderer();
  const { inventory, topology } = inputs;
  const template = (file: string) => renderer.compile(join(templateDir, file));
  const rbac = template('cluster-rbac.yaml.hbs');
  const kubeProxy = template('kube-proxy.yaml.hbs');
  const flannel = template('flannel.yaml.hbs');
  const coredns = template('coredns.yaml.hbs');
  const common = { podCIDR: inventory.cluster.podCIDR, clusterDomain: inventory.cluster.clusterDomain, apiServerUrl: topology.apiServerUrl, dnsServiceIp: topology.dnsServiceIp };
  const tasks = [
    addonTask('cluster-rbac', () => rbac({ apiServerKubeletClientUser: certificateSubjectCn(inputs.pki.apiServerKubeletClient.cert) })),
    addonTask('kube-proxy', (ctx) => {
      const config = {
        conntrackMaxPerCore: String(kubeProxyConntrackMaxPerCoreOf(ctx) ?? ''),
        featureGates: featureGateList(inventory.cluster.featureGates),
        mode: inventory.cluster.kubeProxy.mode,
        operatorConfig: renderKubeProxyConfigFragment(inventory.cluster.kubeProxy.config),
      };
      const configSha256 = createHash('sha256').update(JSON.stringify([common, config])).digest('hex');
      return kubeProxy({ ...common, ...config, image: imageReference(inputs, 'kube-proxy'), configSha256 });
    }),
    ...(inventory.cluster.cni === 'flannel' ? [addonTask('flannel', () => flannel({ ...common, image: imageReference(inputs, 'flannel') }))] : []),
    addonTask('coredns', () => coredns({ ...common, image: imageReference(inputs, 'coredns'), replicas: Math.min(2, inventory.hosts.length), ...corednsForwarding(inventory.cluster.dns) })),
    secretsEncryptedTask(inputs.encryption),
  ];
  return { name: 'addons', templateDir, tags: ['addons'], tasks };
}
