// Does the local kube-apiserver answer /readyz, using the admin kubeconfig on this control
// plane? "missing" when kubectl or the kubeconfig is not there yet.
import { sh } from '../../orchestrator/ssh/quote.js';
import type { Fact } from '../../orchestrator/engine/fact.js';
import { ADMIN_KUBECONFIG, adminKubectl } from './admin-kubectl.js';

export type ApiReadiness = { readonly ready: true } | { readonly ready: false; readonly detail: string };

export const apiReady: Fact<ApiReadiness> = {
  key: 'api-ready',
  become: true,
  script: sh`[ -x /usr/local/bin/kubectl ] && [ -f ${ADMIN_KUBECONFIG} ] || { echo missing; exit 0; }
out=$(${adminKubectl(5)} get --raw=/readyz 2>&1) && echo ready || { echo not-ready; printf '%s\\n' "$out" | tail -n 3; }`,
  parse(stdout) {
    const [first = '', ...rest] = stdout.trim().split('\n');
    if (first === 'ready') return { ready: true };
    if (first === 'missing') return { ready: false, detail: 'kubectl or the admin kubeconfig is not installed yet' };
    if (first === 'not-ready') return { ready: false, detail: rest.join(' ').slice(0, 300) };
    throw new Error(`unexpected readiness output "${first.slice(0, 80)}"`);
  },
};
