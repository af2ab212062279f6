// The operator's own flags for the control-plane components (cluster.apiServer.extraArgs, ...)
// and the cluster's feature gates, as they go on each component's command line; and the flags
// kcluster refuses there. A flag kcluster sets itself is refused, not overridden: the
// component would get it twice, and which value wins would depend on the component's flag
// parsing (last one for most, an error for some), while kcluster's own checks, certificates
// and waits assume its value. Where the value comes from an inventory setting, the refusal
// names it.
import type { ClusterSettings, ControlPlaneComponentKey } from '../inventory/cluster-settings.js';
import { oidcArgs } from './component-files.js';

export type ControlPlaneComponent = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';

export const COMPONENT_KEY: Readonly<Record<ControlPlaneComponent, ControlPlaneComponentKey>> = {
  etcd: 'etcd',
  'kube-apiserver': 'apiServer',
  'kube-controller-manager': 'controllerManager',
  'kube-scheduler': 'scheduler',
};

/** etcd has feature gates of its own, not Kubernetes'. */
const takesFeatureGates = (component: ControlPlaneComponent): boolean => component !== 'etcd';

/** "A=true,B=false", sorted by name; undefined without gates. */
export function featureGatesValue(gates: Readonly<Record<string, boolean>>): string | undefined {
  const names = Object.keys(gates).sort();
  return names.length === 0 ? undefined : names.map((name) => `${name}=${gates[name]}`).join(',');
}

/** The gates as a list for the kubelet's and kube-proxy's configuration files (featureGates: maps), sorted by name. */
export function featureGateList(gates: Readonly<Record<string, boolean>>): { name: string; enabled: boolean }[] {
  return Object.keys(gates)
    .sort()
    .map((name) => ({ name, enabled: gates[name]! }));
}

/** The flags kcluster adds to the component's own: the operator's, sorted, then the feature gates. */
/**
 * With the API at a virtual IP, an API server that stops fails /readyz at once but serves
 * requests for 5 s more: long enough for keepalived's check (2 failures, 1 s apart) to move the
 * address to another control plane before it stops listening. The operator's own value wins.
 */
export const VIRTUAL_IP_SHUTDOWN_DELAY = '5s';

export function componentExtraArgs(
  cluster: Pick<ClusterSettings, 'extraArgs' | 'featureGates' | 'apiServerOidc'>,
  component: ControlPlaneComponent,
  options: { readonly virtualIp?: boolean } = {},
): string[] {
  const own = cluster.extraArgs[COMPONENT_KEY[component]];
  const delay =
    component === 'kube-apiserver' && options.virtualIp === true && own['shutdown-delay-duration'] === undefined
      ? [`--shutdown-delay-duration=${VIRTUAL_IP_SHUTDOWN_DELAY}`]
      : [];
  const flags = [
    ...delay,
    ...Object.keys(own)
      .sort()
      .map((flag) => `--${flag}=${own[flag]}`),
    ...(component === 'kube-apiserver' ? oidcArgs(cluster.apiServerOidc) : []),
  ];
  const gates = takesFeatureGates(component) ? featureGatesValue(cluster.featureGates) : undefined;
  return gates === undefined ? flags : [...flags, `--feature-gates=${gates}`];
}

/** Where the value of a flag kcluster sets comes from, when the inventory has a setting for it. */
const SETTING_FOR: Readonly<Record<string, string>> = {
  'secure-port': 'cluster.apiEndpoint.port',
  'service-cluster-ip-range': 'cluster.serviceCIDR',
  'cluster-cidr': 'cluster.podCIDR',
  'cluster-name': 'cluster.name',
  'admission-control-config-file': 'cluster.podSecurity',
  'audit-policy-file': 'cluster.audit.policyFile',
  'audit-log-maxage': 'cluster.audit.maxAgeDays',
  'audit-log-maxbackup': 'cluster.audit.maxBackups',
  'audit-log-maxsize': 'cluster.audit.maxSizeMB',
  'feature-gates': 'cluster.featureGates',
};

export interface ComponentArgProblem {
  /** Inventory path of the map holding the flag, and the flag (the key) itself. */
  readonly path: readonly string[];
  readonly flag: string;
  readonly message: string;
}

/**
 * Flags the operator may not set: those kcluster's manifest for the component sets
 * (`kcluster` lists them), and --feature-gates where cluster.featureGates applies.
 */
export function componentArgProblems(
  cluster: Pick<ClusterSettings, 'extraArgs' | 'apiServerOidc'>,
  kclusterFlags: (component: ControlPlaneComponent) => ReadonlySet<string>,
): ComponentArgProblem[] {
  const problems: ComponentArgProblem[] = [];
  for (const component of Object.keys(COMPONENT_KEY) as ControlPlaneComponent[]) {
    const key = COMPONENT_KEY[component];
    const own = kclusterFlags(component);
    for (const flag of Object.keys(cluster.extraArgs[key])) {
      const oidc = component === 'kube-apiserver' && cluster.apiServerOidc !== undefined && flag.startsWith('oidc-');
      const owned = own.has(flag) || (flag === 'feature-gates' && takesFeatureGates(component)) || oidc;
      if (!owned) continue;
      const setting = oidc ? 'cluster.apiServer.oidc' : SETTING_FOR[flag];
      problems.push({
        path: ['cluster', key, 'extraArgs'],
        flag,
        message: `--${flag} is set by kcluster on ${component} itself, so it cannot be given again: ${
          setting ? `set ${setting} instead` : 'kcluster depends on its value (certificates, ports, waits); if you need another, open an issue for a setting'
        }`,
      });
    }
  }
  return problems;
}
