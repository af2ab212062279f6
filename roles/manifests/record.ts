// What kcluster last applied of the operator's manifests: the ConfigMap
// kube-system/kcluster-manifests holds their sha256, the objects (to delete those that leave
// the manifests) and the text (for the next `--diff`).
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { kubeSystemConfigMapData, kubeSystemConfigMapManifest } from '../../src/kubernetes/facts/configmap-data.js';
import type { ObjectRef } from '../../src/kubernetes/cluster/operator-manifests.js';

export const MANIFEST_RECORD = 'kcluster-manifests';

export type ManifestRecord =
  | { readonly reachable: true; readonly sha256?: string; readonly objects: readonly ObjectRef[]; readonly text: string }
  | { readonly reachable: false; readonly detail: string };

const read = kubeSystemConfigMapData('manifest-record', MANIFEST_RECORD);

export const manifestRecord: Fact<ManifestRecord> = {
  ...read,
  parse(stdout, exitCode) {
    const value = read.parse(stdout, exitCode);
    if (!value.reachable) return value;
    const data = value.data;
    return {
      reachable: true,
      ...(data['sha256'] !== undefined ? { sha256: data['sha256'] } : {}),
      objects: data['objects'] !== undefined ? (JSON.parse(data['objects']) as ObjectRef[]) : [],
      text: data['manifest'] ?? '',
    };
  },
};

/** The record's own manifest, applied after the objects. */
export function recordManifest(sha256: string, objects: readonly ObjectRef[], text: string): string {
  return kubeSystemConfigMapManifest(MANIFEST_RECORD, { sha256, objects: JSON.stringify(objects), manifest: text });
}
