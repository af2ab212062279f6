// The API server's admission configuration: Pod Security admission's cluster-wide default.
// A namespace without pod-security.kubernetes.io/* labels gets `cluster.podSecurity` (baseline
// enforced, restricted warned and audited unless the inventory says otherwise); a namespace's
// own labels still win, as Kubernetes documents. kube-system is always exempt: kube-proxy and
// flannel need the host's network and privileges, and so do the operator's node agents there.
import { stringify } from 'yaml';
import type { PodSecuritySettings } from '../inventory/cluster-settings.js';

export const ADMISSION_CONFIG_DIR = '/etc/kubernetes/admission';
export const ADMISSION_CONFIG_PATH = `${ADMISSION_CONFIG_DIR}/config.yaml`;
export const ALWAYS_EXEMPT_NAMESPACES = ['kube-system'] as const;

export function renderAdmissionConfig(podSecurity: PodSecuritySettings): string {
  const namespaces = [...new Set([...ALWAYS_EXEMPT_NAMESPACES, ...podSecurity.exemptNamespaces])].sort();
  const config = {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AdmissionConfiguration',
    plugins: [
      {
        name: 'PodSecurity',
        configuration: {
          apiVersion: 'pod-security.admission.config.k8s.io/v1',
          kind: 'PodSecurityConfiguration',
          defaults: {
            enforce: podSecurity.enforce,
            'enforce-version': 'latest',
            warn: podSecurity.warn,
            'warn-version': 'latest',
            audit: podSecurity.audit,
            'audit-version': 'latest',
          },
          exemptions: { usernames: [], runtimeClasses: [], namespaces },
        },
      },
    ],
  };
  return `# Written by kcluster from cluster.podSecurity in the inventory.\n${stringify(config)}`;
}
