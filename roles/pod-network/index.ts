// The pod-network role, on every node once the API server answers: waits until the
// controller-manager has given the node its pod CIDR, then writes the CNI configuration for
// it: a bridge with host-local addresses from that CIDR, which flannel's vxlan routes connect
// across nodes (what flannel's own CNI plugin would delegate to); then checks that the bridge
// and the pods are inside that CIDR, and moves them when the CIDR changed (renumber.ts).
// Nothing when cluster.cni is none: bring your own CNI. See README.md beside this file.
import { join } from 'node:path';
import type { ClusterInputs } from '../../src/kubernetes/cluster/cluster-inputs.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import type { Role, Task } from '../../src/orchestrator/engine/types.js';
import { nodeAddress } from '../../src/kubernetes/cluster/topology.js';
import { nodePodCidr, nodePodCidrs, KUBELET_KUBECONFIG } from '../../src/kubernetes/facts/node-pod-cidr.js';
import { IPV4_ONLY_NODE, isDualStack } from '../../src/kubernetes/cluster/dual-stack.js';
import { linkMtu, type LinkMtu } from '../../src/orchestrator/facts/link-mtu.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { factDerivedFile } from '../../src/orchestrator/tasks/fact-derived-file.js';
import { createTemplateRenderer } from '../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../src/orchestrator/util/package-root.js';
import { podsInPodCidr } from './renumber.js';

const templateDir = join(packageRoot(), 'roles', 'pod-network', 'templates');
const WAIT_MS = 180_000;
/** One watch's length, in seconds (see waitForPodCidr). */
const WATCH_S = 20;
/** What vxlan adds to each packet (outer Ethernet, IP, UDP and vxlan headers): flanneld leaves the same room. */
const VXLAN_OVERHEAD = 50;

/** The pods' MTU: the node's own link's (the one holding its address, which flanneld tunnels over) less vxlan's headers. */
export function podMtu(link: LinkMtu, host: string, address: string): number {
  if (!link.found)
    throw new Error(
      `${host}: no interface holds ${address} (its address in the inventory), so the pods' MTU cannot follow its link: give the host an address it has (ip -o addr), which the kubelet and flannel use too`,
    );
  return link.mtu - VXLAN_OVERHEAD;
}

/**
 * A dual-stack node's two ranges, IPv4 first. A Node registered while the cluster was IPv4 only
 * keeps its one range: Kubernetes never changes a Node's pod ranges once set.
 */
export function dualStackPodCidrs(cidrs: readonly string[], host: string): [string, string] {
  const [v4, v6] = cidrs;
  if (cidrs.length === 2 && v4 !== undefined && v6 !== undefined && !v4.includes(':') && v6.includes(':')) return [v4, v6];
  throw new Error(`${host}: the cluster is dual-stack but its Node has the pod ranges [${cidrs.join(', ')}]: ${IPV4_ONLY_NODE}`);
}

function waitForPodCidr(): Task<{ cidr: ReturnType<typeof nodePodCidr> }, null> {
  return {
    name: 'pod CIDR assigned',
    tags: ['pod-network'],
    facts: (ctx) => ({ cidr: nodePodCidr(ctx.host.name) }),
    // The dual-stack CNI config reads both ranges: read again once they are assigned.
    invalidates: ['node-pod-cidrs:*'],
    plan: (facts) =>
      facts.cidr.assigned
        ? noChange(`pod CIDR ${facts.cidr.cidr}`)
        : { kind: 'wait', summary: `wait for the node's pod CIDR (${facts.cidr.detail})`, payload: null },
    apply: async (_change, ctx) => {
      // A watch (kubectl wait) answers the moment the controller-manager assigns the CIDR; it
      // is tried again, a second apart, while the Node is not registered or the API does not
      // answer, and each try ends after WATCH_S so that a lost watch is noticed.
      const outcome = await pollUntil({
        timeoutMs: WAIT_MS,
        intervalMs: 1000,
        signal: ctx.signal,
        probe: () =>
          ctx.connection.exec(
            sh`/usr/local/bin/kubectl --kubeconfig=${KUBELET_KUBECONFIG} --request-timeout=${`${WATCH_S + 5}s`} wait ${`node/${ctx.host.name}`} --for=jsonpath='{.spec.podCIDR}' --timeout=${`${WATCH_S}s`}`,
            { become: true, label: 'watch for the pod CIDR', timeoutMs: (WATCH_S + 15) * 1000 },
          ),
        done: (r) => r.code === 0,
        progress: {
          // kubectl wait's last word: the Node not registered yet, the API not answering, or its own timeout.
          describe: (r) => `a pod CIDR for ${ctx.host.name} (${r === undefined ? 'no answer' : r.stderr.trim().split('\n').at(-1) || `exit ${r.code}`})`,
          report: (line) => ctx.progress(line),
        },
      });
      if (outcome.reached) return;
      if (outcome.interrupted) throw new Error(`interrupted while waiting for the pod CIDR of ${ctx.host.name}`);
      throw new Error(
        `${ctx.host.name} got no pod CIDR within ${WAIT_MS / 1000} s: is its kubelet registered (journalctl -u kubelet) and the controller-manager running with --allocate-node-cidrs?`,
      );
    },
  };
}

/** Needs only the inventory: `etcd snapshot restore` runs it too, once the restored Nodes are back. */
export function podNetworkRole(inputs: Pick<ClusterInputs, 'inventory'>): Role {
  const renderer = createTemplateRenderer();
  const conflist = renderer.compile(join(templateDir, '10-flannel.conflist.hbs'));
  if (inputs.inventory.cluster.cni === 'none') return { name: 'pod-network', tasks: [] };
  const dualStack = isDualStack(inputs.inventory.cluster);
  return {
    name: 'pod-network',
    templateDir,
    tags: ['pod-network'],
    tasks: [
      waitForPodCidr(),
      factDerivedFile({
        path: '/etc/cni/net.d/10-flannel.conflist',
        mode: 0o644,
        // A dual-stack node's two ranges (spec.podCIDRs); spec.podCIDR alone otherwise.
        facts: (ctx) => ({ cidr: dualStack ? nodePodCidrs(ctx.host.name) : nodePodCidr(ctx.host.name), link: linkMtu(nodeAddress(ctx.host)) }),
        content: (facts, ctx) => {
          if (!facts.cidr.assigned) return { skip: `the node has no pod CIDR yet (${facts.cidr.detail})` };
          const [podCidr, podCidr6] = 'cidrs' in facts.cidr ? dualStackPodCidrs(facts.cidr.cidrs, ctx.host.name) : [facts.cidr.cidr];
          return conflist({ podCidr, podCidr6, mtu: podMtu(facts.link, ctx.host.name, nodeAddress(ctx.host)) });
        },
      }),
      podsInPodCidr(inputs.inventory.cluster.podCIDR),
    ],
  };
}
