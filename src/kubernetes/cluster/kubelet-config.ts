// The operator's KubeletConfiguration fields (vars.kubeletConfig, per host through the vars
// precedence): added after kcluster's own in /var/lib/kubelet/config.yaml, and refused where
// kcluster sets the field itself, for the reason component flags are (see component-args.ts).
import { stringify } from 'yaml';
import type { Inventory } from '../../orchestrator/inventory/model.js';

/** Where a field kcluster sets comes from, when the inventory has a setting for it. */
const SETTING_FOR: Readonly<Record<string, string>> = {
  cgroupDriver: 'vars.cgroupDriver',
  failSwapOn: 'vars.failSwapOn',
  featureGates: 'cluster.featureGates',
  clusterDomain: 'cluster.clusterDomain',
  clusterDNS: 'cluster.serviceCIDR (its tenth address)',
};

export interface KubeletFieldProblem {
  readonly host: string;
  readonly field: string;
  readonly message: string;
}

export function kubeletConfigProblems(inventory: Pick<Inventory, 'hosts'>, kclusterFields: ReadonlySet<string>): KubeletFieldProblem[] {
  const problems: KubeletFieldProblem[] = [];
  for (const host of inventory.hosts) {
    const fragment = host.vars['kubeletConfig'];
    if (typeof fragment !== 'object' || fragment === null) continue;
    for (const field of Object.keys(fragment)) {
      if (!kclusterFields.has(field)) continue;
      const setting = SETTING_FOR[field];
      problems.push({
        host: host.name,
        field,
        message: `${field} is set by kcluster in the kubelet's configuration itself, so it cannot be given again: ${setting ? `set ${setting} instead` : 'kcluster depends on its value; if you need another, open an issue for a setting'}`,
      });
    }
  }
  return problems;
}

/** The operator's fields as they follow kcluster's in the file; empty without any. */
export function renderKubeletConfigFragment(fragment: Readonly<Record<string, unknown>>): string {
  if (Object.keys(fragment).length === 0) return '';
  return `# The operator's settings (vars.kubeletConfig):\n${stringify(fragment)}`;
}
