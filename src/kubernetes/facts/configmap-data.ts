// A ConfigMap's data in kube-system, read through the admin kubeconfig on the first control
// plane: its data map ({} when the ConfigMap does not exist yet), or why the API server could
// not be asked; and the manifest that writes such a ConfigMap. What kcluster records there: the
// addons it applied, the operator's manifests.
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { adminKubectl } from './admin-kubectl.js';

export type ConfigMapData =
  { readonly reachable: true; readonly data: Readonly<Record<string, string>> } | { readonly reachable: false; readonly detail: string };

export function kubeSystemConfigMapData(key: string, name: string): Fact<ConfigMapData> {
  return {
    key,
    become: true,
    script: sh`out=$(${adminKubectl(10)} -n kube-system get configmap ${name} -o 'jsonpath={.data}' 2>&1)
case $? in
  0) echo ok; printf '%s\\n' "$out" ;;
  *) case "$out" in *NotFound*|*'not found'*) echo ok; echo '{}' ;; *) echo unreachable; printf '%s\\n' "$out" | tail -n 2 ;; esac ;;
esac`,
    parse(stdout) {
      const [first = '', ...rest] = stdout.trim().split('\n');
      if (first === 'unreachable') return { reachable: false, detail: rest.join(' ').slice(0, 300) };
      if (first !== 'ok') throw new Error(`unexpected output for ConfigMap ${name}: "${first.slice(0, 80)}"`);
      const text = rest.join('\n').trim();
      return { reachable: true, data: text === '' ? {} : (JSON.parse(text) as Record<string, string>) };
    },
  };
}

/** A ConfigMap in kube-system with this data, as JSON for `kubectl apply -f -`. */
export function kubeSystemConfigMapManifest(name: string, data: Readonly<Record<string, string>>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'kube-system' }, data });
}
