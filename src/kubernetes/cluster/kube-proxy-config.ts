// The operator's kube-proxy settings (cluster.kubeProxy): the mode, and KubeProxyConfiguration
// fields added after kcluster's own in the kube-proxy ConfigMap; a field kcluster sets itself is
// refused, for the reason component flags are (see component-args.ts).
import { stringify } from 'yaml';
import type { KubeProxySettings } from '../inventory/cluster-settings.js';

/** Where a field kcluster sets comes from, when the inventory has a setting for it. */
const SETTING_FOR: Readonly<Record<string, string>> = {
  mode: 'cluster.kubeProxy.mode',
  featureGates: 'cluster.featureGates',
  clusterCIDR: 'cluster.podCIDR',
  conntrack: 'vars.kubeProxyConntrackMaxPerCore',
};

export interface KubeProxyFieldProblem {
  readonly field: string;
  readonly message: string;
}

export function kubeProxyConfigProblems(settings: KubeProxySettings, kclusterFields: ReadonlySet<string>): KubeProxyFieldProblem[] {
  return Object.keys(settings.config)
    .filter((field) => kclusterFields.has(field))
    .map((field) => {
      const setting = SETTING_FOR[field];
      return {
        field,
        message: `${field} is set by kcluster in kube-proxy's configuration itself, so it cannot be given again: ${setting ? `set ${setting} instead` : 'kcluster depends on its value; if you need another, open an issue for a setting'}`,
      };
    });
}

/** The operator's fields as YAML indented to sit inside the ConfigMap's config.conf; empty without any. */
export function renderKubeProxyConfigFragment(config: Readonly<Record<string, unknown>>): string {
  if (Object.keys(config).length === 0) return '';
  return stringify(config)
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
