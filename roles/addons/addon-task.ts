// One addon as a task: its manifest rendered from the role's templates, applied with
// server-side apply through the first control plane's API server only when it differs from
// what kcluster recorded applying (addon-plan.ts), and the record updated. Used by the addons
// role and, for CoreDNS, by addons-running (running.ts), which applies it once the nodes'
// network runs.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { imageReference } from '../../src/kubernetes/cluster/cluster-inputs.js';
import type { HostContext, Task } from '../../src/orchestrator/engine/types.js';
import { ADDON_RECORD, addonRecord, addonRecordManifest, addonRecordRemoval } from '../../src/kubernetes/facts/addon-record.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { planAddon, planAddonRemoval, type AddonPayload } from './addon-plan.js';
import { corednsForwarding } from './coredns-forwarding.js';

export const templateDir = join(packageRoot(), 'roles', 'addons', 'templates');

export function addonTask(name: string, render: (ctx: HostContext) => string): Task<{ record: typeof addonRecord }, AddonPayload> {
  return {
    name: `addon ${name}`,
    tags: ['addons', name],
    facts: () => ({ record: addonRecord }),
    plan: (facts, ctx) => planAddon(name, render(ctx), facts.record),
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(60);
      await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=kcluster -f -`, {
        become: true,
        stdin: change.payload.manifest,
        label: `apply ${name}`,
      });
      // Each addon owns its own keys of the record (one field manager per addon).
      const record = addonRecordManifest(name, change.payload.sha256, change.payload.manifest);
      await execChecked(ctx.connection, sh`${kubectl} apply --server-side --force-conflicts --field-manager=${`kcluster-addon-${name}`} -f -`, {
        become: true,
        stdin: record,
        label: `record ${name}`,
      });
    },
    invalidates: ['addon-record'],
  };
}

/**
 * An addon turned off in the inventory: when the record says kcluster applied it, the objects
 * of the manifest it recorded (or, with no recorded text, of the current one) are deleted and
 * its keys leave the record. Never applied: nothing to do.
 */
export function addonRemovalTask(name: string, render: (ctx: HostContext) => string): Task<{ record: typeof addonRecord }, AddonPayload> {
  return {
    name: `addon ${name}`,
    tags: ['addons', name],
    facts: () => ({ record: addonRecord }),
    plan: (facts, ctx) => planAddonRemoval(name, render(ctx), facts.record),
    apply: async (change, ctx) => {
      const kubectl = adminKubectl(60);
      await execChecked(ctx.connection, sh`${kubectl} delete --ignore-not-found --wait=false -f -`, {
        become: true,
        stdin: change.payload.manifest,
        label: `delete ${name}`,
      });
      await execChecked(ctx.connection, sh`${kubectl} -n kube-system patch configmap ${ADDON_RECORD} --type=merge -p ${addonRecordRemoval(name)}`, {
        become: true,
        label: `unrecord ${name}`,
      });
    },
    invalidates: ['addon-record'],
  };
}

/** What every addon template is rendered with. */
export function addonCommonData(inputs: Pick<ClusterInputs, 'inventory' | 'topology'>): {
  podCIDR: string;
  clusterDomain: string;
  apiServerUrl: string;
  dnsServiceIp: string;
} {
  const { inventory, topology } = inputs;
  return {
    podCIDR: inventory.cluster.podCIDR,
    clusterDomain: inventory.cluster.clusterDomain,
    apiServerUrl: topology.apiServerUrl,
    dnsServiceIp: topology.dnsServiceIp,
  };
}

export function coreDnsAddonTask(inputs: ClusterInputs): Task<{ record: typeof addonRecord }, AddonPayload> {
  const coredns = createTemplateRenderer().compile(join(templateDir, 'coredns.yaml.hbs'));
  const { inventory } = inputs;
  return addonTask('coredns', () =>
    coredns({
      ...addonCommonData(inputs),
      image: imageReference(inputs, 'coredns'),
      replicas: Math.min(2, inventory.hosts.length),
      ...corednsForwarding(inventory.cluster.dns),
    }),
  );
}

/**
 * An addon the inventory turns on or off: applied when on; turned off, the objects kcluster
 * recorded for it are deleted. Off, its image is not among the artifacts: the template gets a
 * placeholder, since deleting goes by the objects' names.
 */
function switchedAddonTask(
  inputs: ClusterInputs,
  addon: { readonly name: string; readonly template: string; readonly image: string; readonly enabled: boolean },
  data: Readonly<Record<string, unknown>>,
): Task<{ record: typeof addonRecord }, AddonPayload> {
  const template = createTemplateRenderer().compile(join(templateDir, addon.template));
  const render = (): string => template({ ...data, image: addon.enabled ? imageReference(inputs, addon.image) : 'not-installed' });
  return addon.enabled ? addonTask(addon.name, render) : addonRemovalTask(addon.name, render);
}

/** metrics-server (cluster.metricsServer.enabled). */
export function metricsServerAddonTask(inputs: ClusterInputs): Task<{ record: typeof addonRecord }, AddonPayload> {
  const addon = {
    name: 'metrics-server',
    template: 'metrics-server.yaml.hbs',
    image: 'metrics-server',
    enabled: inputs.inventory.cluster.metricsServer.enabled,
  };
  return switchedAddonTask(inputs, addon, addonCommonData(inputs));
}

/** What the local-path-provisioner image runs: kcluster's image, or rancher's published one (`source: release`). */
const LOCAL_PATH_COMMANDS = {
  // kcluster's image has no shell: the helper pod runs kcluster-local-path-helper (src/kubernetes/local-path-helper).
  bundle: { provisionerCommand: '/local-path-provisioner', helperCommand: '/kcluster-local-path-helper' },
  // rancher's image is Alpine's: its busybox shell runs upstream's setup and teardown scripts.
  release: { provisionerCommand: '/usr/bin/local-path-provisioner', helperCommand: undefined },
} as const;

/** The default StorageClass (cluster.localPathStorage.enabled). */
export function localPathStorageAddonTask(inputs: ClusterInputs): Task<{ record: typeof addonRecord }, AddonPayload> {
  const { enabled, path } = inputs.inventory.cluster.localPathStorage;
  const addon = { name: 'local-path-storage', template: 'local-path-storage.yaml.hbs', image: 'local-path-provisioner', enabled };
  return switchedAddonTask(inputs, addon, { path, ...LOCAL_PATH_COMMANDS[inputs.inventory.cluster.artifacts.kind] });
}

/** kube-network-policies (cluster.networkPolicy.enabled). */
export function networkPolicyAddonTask(inputs: ClusterInputs): Task<{ record: typeof addonRecord }, AddonPayload> {
  const { apiEndpointHost, apiServerPort } = inputs.topology;
  const addon = {
    name: 'kube-network-policies',
    template: 'kube-network-policies.yaml.hbs',
    image: 'kube-network-policies',
    enabled: inputs.inventory.cluster.networkPolicy.enabled,
  };
  return switchedAddonTask(inputs, addon, { apiServerHost: apiEndpointHost, apiServerPort });
}
