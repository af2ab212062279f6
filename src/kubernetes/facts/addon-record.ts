// Which addon manifests the cluster last received from kcluster: the ConfigMap
// kube-system/kcluster-addons maps each addon name to the sha256 of what was applied.
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { ADMIN_KUBECONFIG } from './api-ready.js';

export type AddonRecord = { readonly reachable: true; readonly applied: Readonly<Record<string, string>> } | { readonly reachable: false; readonly detail: string };

export const addonRecord: Fact<AddonRecord> = {
  key: 'addon-record',
  become: true,
  script: sh`out=$(/usr/local/bin/kubectl --kubeconfig=${ADMIN_KUBECONFIG} --request-timeout=10s -n kube-system get configmap kcluster-addons -o 'jsonpath={.data}' 2>&1)
case $? in
  0) echo ok; printf '%s\\n' "$out" ;;
  *) case "$out" in *NotFound*|*'not found'*) echo ok; echo '{}' ;; *) echo unreachable; printf '%s\\n' "$out" | tail -n 2 ;; esac ;;
esac`,
  parse(stdout) {
    const [first = '', ...rest] = stdout.trim().split('\n');
    if (first === 'unreachable') return { reachable: false, detail: rest.join(' ').slice(0, 300) };
    if (first !== 'ok') throw new Error(`unexpected addon record output "${first.slice(0, 80)}"`);
    const text = rest.join('\n').trim();
    return { reachable: true, applied: text === '' ? {} : (JSON.parse(text) as Record<string, string>) };
  },
};
