// What kcluster last applied of the operator's manifests: the ConfigMap
// kube-system/kcluster-manifests holds their sha256, the objects (to delete those that leave
// the manifests) and the text (for the next `--diff`).
import { sh } from '../../src/orchestrator/ssh/quote.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { ADMIN_KUBECONFIG } from '../../src/kubernetes/facts/api-ready.js';
import type { ObjectRef } from '../../src/kubernetes/cluster/operator-manifests.js';

export const MANIFEST_RECORD = 'kcluster-manifests';

export type ManifestRecord =
  | { readonly reachable: true; readonly sha256?: string; readonly objects: readonly ObjectRef[]; readonly text: string }
  | { readonly reachable: false; readonly detail: string };

export const manifestRecord: Fact<ManifestRecord> = {
  key: 'manifest-record',
  become: true,
  script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${ADMIN_KUBECONFIG} --request-timeout=10s -n kube-system get configmap ${MANIFEST_RECORD} -o 'jsonpath={.data}' 2>&1)
case $? in
  0) echo ok; printf '%s\\n' "$out" ;;
  *) case "$out" in *NotFound*|*'not found'*) echo ok; echo '{}' ;; *) echo unreachable; printf '%s\\n' "$out" | tail -n 2 ;; esac ;;
esac`,
  parse(stdout) {
    const [first = '', ...rest] = stdout.trim().split('\n');
    if (first === 'unreachable') return { reachable: false, detail: rest.join(' ').slice(0, 300) };
    if (first !== 'ok') throw new Error(`unexpected manifest record output "${first.slice(0, 80)}"`);
    const body = rest.join('\n').trim();
    const data = (body === '' ? {} : JSON.parse(body)) as { sha256?: string; objects?: string; manifest?: string };
    return {
      reachable: true,
      ...(data.sha256 !== undefined ? { sha256: data.sha256 } : {}),
      objects: data.objects !== undefined ? (JSON.parse(data.objects) as ObjectRef[]) : [],
      text: data.manifest ?? '',
    };
  },
};

/** The record's own manifest, applied after the objects. */
export function recordManifest(sha256: string, objects: readonly ObjectRef[], text: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: MANIFEST_RECORD, namespace: 'kube-system' },
    data: { sha256, objects: JSON.stringify(objects), manifest: text },
  });
}
