// Which addon manifests the cluster last received from kcluster: the ConfigMap
// kube-system/kcluster-addons maps each addon name to the sha256 of what was applied, and
// `<name>.yaml` to its text (for the next `--check --diff`; records written before the text was
// kept have the sha256 only).
import type { Fact } from '../../orchestrator/engine/fact.js';
import { kubeSystemConfigMapData, kubeSystemConfigMapManifest } from './configmap-data.js';

export type AddonRecord =
  | { readonly reachable: true; readonly applied: Readonly<Record<string, string>>; readonly texts: Readonly<Record<string, string>> }
  | { readonly reachable: false; readonly detail: string };

export const ADDON_RECORD = 'kcluster-addons';

/** The record's key for the text of an addon's manifest. */
export const addonTextKey = (name: string): string => `${name}.yaml`;

const TEXT_SUFFIX = addonTextKey('');

const read = kubeSystemConfigMapData('addon-record', ADDON_RECORD);

export const addonRecord: Fact<AddonRecord> = {
  ...read,
  parse(stdout, exitCode) {
    const value = read.parse(stdout, exitCode);
    if (!value.reachable) return value;
    const applied: Record<string, string> = {};
    const texts: Record<string, string> = {};
    for (const [key, data] of Object.entries(value.data)) {
      if (key.endsWith(TEXT_SUFFIX)) texts[key.slice(0, -TEXT_SUFFIX.length)] = data;
      else applied[key] = data;
    }
    return { reachable: true, applied, texts };
  },
};

/** The record's own manifest for one addon (its field manager owns these two keys only). */
export function addonRecordManifest(name: string, sha256: string, manifest: string): string {
  return kubeSystemConfigMapManifest(ADDON_RECORD, { [name]: sha256, [addonTextKey(name)]: manifest });
}

/** A merge patch of the record that takes out one addon's keys (its sha256 and its text). */
export function addonRecordRemoval(name: string): string {
  return JSON.stringify({ data: { [name]: null, [addonTextKey(name)]: null } });
}
