// A fact read on the operator with the admin kubeconfig: whether NODE's Node object exists and
// carries the out-of-service taint, and the pods still bound to it (they outlive the Node).
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { adminKubectl } from '../../src/kubernetes/facts/admin-kubectl.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { OUT_OF_SERVICE_TAINT, parsePodList, type PodsOnNode } from './pods-on-node.js';

export interface OutOfServiceState {
  readonly nodeExists: boolean;
  /** The Node carries node.kubernetes.io/out-of-service (false without a Node). */
  readonly tainted: boolean;
  readonly pods: PodsOnNode;
}

const PODS_MARKER = '--- kcluster pods on the node ---';

export function parseOutOfServiceState(stdout: string): OutOfServiceState {
  const at = stdout.indexOf(`${PODS_MARKER}\n`);
  if (at < 0) throw new Error(`could not read the Node: ${stdout.trim().slice(0, 300)}`);
  const head = stdout.slice(0, at).trim();
  const pods = parsePodList(stdout.slice(at + PODS_MARKER.length + 1));
  if (head === 'node absent') return { nodeExists: false, tainted: false, pods };
  const match = /^node taints:(.*)$/s.exec(head);
  if (!match) throw new Error(`could not read the Node: ${head.slice(0, 300)}`);
  return { nodeExists: true, tainted: (match[1] ?? '').split(/\s+/).includes(OUT_OF_SERVICE_TAINT.key), pods };
}

export function outOfServiceState(node: string): Fact<OutOfServiceState> {
  const kubectl = adminKubectl(10);
  return {
    key: `out-of-service:${node}`,
    become: true,
    // The pods are listed even without a Node: pods bound to a deleted Node stay until deleted.
    script: sh`if out=$(${kubectl} get node ${node} -o ${'jsonpath={.spec.taints[*].key}'} 2>&1); then printf 'node taints:%s\\n' "$out"
else case $out in *NotFound*) echo 'node absent' ;; *) printf '%s\\n' "$out"; exit 1 ;; esac; fi
echo ${PODS_MARKER}
${kubectl} get pods --all-namespaces --field-selector ${`spec.nodeName=${node}`} -o json`,
    parse: parseOutOfServiceState,
  };
}
