// The soak's own inventory: the lab's (its ssh settings, state folder, bundle and lab vars) with
// only the model's hosts, each with its role, the release (the bundle's second-newest until the
// upgrade, then its newest) and the settings operations have changed. Pure: text in, text out;
// the soak writes it before each command.
import { parse, stringify } from 'yaml';
import { inventoryHosts, type ClusterModel } from './cluster-model.js';

interface InventoryDoc {
  cluster?: Record<string, unknown>;
  vars?: Record<string, unknown>;
  hosts: { name: string; roles?: string[] }[];
}

/** An API server flag kcluster leaves to the operator (it refuses one it sets itself, such as profiling): 200 is its default. */
export const API_SERVER_FLAG = 'max-mutating-requests-inflight';

const asMap = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});

/** The two releases of the bundle the soak runs on. */
export interface SoakReleases {
  readonly previous: string;
  readonly newest: string;
}

export function soakInventoryYaml(labInventory: string, model: ClusterModel, hostName: (host: number) => string, releases?: SoakReleases): string {
  const doc = parse(labInventory) as InventoryDoc;
  const byName = new Map(doc.hosts.map((h) => [h.name, h]));
  doc.hosts = inventoryHosts(model).map((host) => {
    const entry = byName.get(hostName(host));
    if (!entry) throw new Error(`the lab inventory has no host ${hostName(host)}`);
    return { ...entry, roles: model.controlPlanes.includes(host) ? ['control-plane'] : ['worker'] };
  });
  if (model.kubeletMaxPods !== undefined) {
    const vars = asMap(doc.vars);
    doc.vars = { ...vars, kubeletConfig: { ...asMap(vars['kubeletConfig']), maxPods: model.kubeletMaxPods } };
  }
  if (model.apiServerMutatingInflight300 !== undefined) {
    const cluster = asMap(doc.cluster);
    const apiServer = asMap(cluster['apiServer']);
    doc.cluster = {
      ...cluster,
      apiServer: { ...apiServer, extraArgs: { ...asMap(apiServer['extraArgs']), [API_SERVER_FLAG]: model.apiServerMutatingInflight300 ? '300' : '200' } },
    };
  }
  if (releases !== undefined) doc.cluster = { ...asMap(doc.cluster), kubernetesVersion: model.upgraded === true ? releases.newest : releases.previous };
  return stringify(doc);
}
