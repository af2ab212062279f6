// Which addon manifests the cluster last received from kcluster: the ConfigMap
// kube-system/kcluster-addons maps each addon name to the sha256 of what was applied.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { kubeSystemConfigMapData } from './configmap-data.js';

export type AddonRecord = { readonly reachable: true; readonly applied: Readonly<Record<string, string>> } | { readonly reachable: false; readonly detail: string };

const read = kubeSystemConfigMapData('addon-record', 'kcluster-addons');

export const addonRecord: Fact<AddonRecord> = {
  ...read,
  parse(stdout, exitCode) {
    const value = read.parse(stdout, exitCode);
    return value.reachable ? { reachable: true, applied: value.data } : value;
  },
};
