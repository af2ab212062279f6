// When a node's pod CIDR changes (its Node object was deleted and registered again, or an etcd
// restore brought back a Node with another CIDR), a new CNI config is not enough: the cni0
// bridge keeps its old gateway address, so the bridge plugin refuses every new pod ("cni0
// already has an IP address different from ..."); running pods keep addresses that flannel no
// longer routes to this node; flanneld keeps its old lease. This task checks on every run that
// the node is inside its CIDR, and when it is not: deletes a bridge with another address (the
// plugin creates it again with the right one), removes the sandboxes of pods outside the CIDR
// and flannel's when its lease is another, with the lease file it wrote (the kubelet creates
// them again: the pods get addresses in the new CIDR, flanneld takes the new lease).
// It reads again until nothing is left: a sandbox the kubelet was creating from the old
// config at the same moment is caught too. A task, not a handler: a run that stopped between
// the config and the move still converges on the next one.
import { noChange, skip } from '../../src/orchestrator/engine/change.js';
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { readFacts } from '../../src/orchestrator/engine/read-facts.js';
import { waitProgressReporter } from '../../src/orchestrator/engine/wait-progress.js';
import type { Task } from '../../src/orchestrator/engine/types.js';
import { nodePodCidr } from '../../src/kubernetes/facts/node-pod-cidr.js';
import { cidrContains, formatIpv4, parseCidr, parseIpv4, type Cidr } from '../../src/kubernetes/inventory/cidr.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';

const BRIDGE = 'cni0';
const FLANNEL_SUBNET_FILE = '/run/flannel/subnet.env';
const ROUNDS_WITHIN_MS = 90_000;
const PAUSE_BETWEEN_ROUNDS_MS = 3000;
const SEP = '|';

interface Sandbox {
  readonly id: string;
  /** "namespace/name" of the pod. */
  readonly pod: string;
  readonly ip: string;
  readonly hostNetwork: boolean;
}

export interface PodNetworkState {
  /** IPv4 addresses of cni0, as "address/bits"; none when the bridge does not exist. */
  readonly bridge: readonly string[];
  /** flanneld's lease as it wrote it ("address/bits"), when it did. */
  readonly flannelLease?: string;
  readonly sandboxes: readonly Sandbox[];
  /** Ready sandboxes of the flannel pod. */
  readonly flannelSandboxes: readonly string[];
  /** Why the sandboxes could not be listed (the runtime is not there or not answering). */
  readonly runtimeError?: string;
}

export interface RenumberActions {
  readonly deleteBridge: boolean;
  /** Sandboxes to remove: pods outside the CIDR, and flannel's when its lease is another. */
  readonly removeSandboxes: readonly { readonly id: string; readonly pod: string; readonly why: string; readonly flannel?: true }[];
}

const template = `{{range .}}{{.status.id}}${SEP}{{.status.metadata.namespace}}/{{.status.metadata.name}}${SEP}{{.status.network.ip}}${SEP}{{.status.linux.namespaces.options.network}}\n{{end}}`;

/** One read of the bridge, flannel's lease and the ready sandboxes with their addresses. */
const podNetworkStateScript = sh`ip -4 -o addr show dev ${BRIDGE} 2>/dev/null | awk '{print "bridge", $4}'
sed -n 's/^FLANNEL_SUBNET=/flannel /p' ${FLANNEL_SUBNET_FILE} 2>/dev/null
if ! command -v crictl >/dev/null; then echo "runtime-error crictl is not installed"
elif ! ids=$(crictl pods -q --state ready 2>&1); then echo "runtime-error $(printf '%s' "$ids" | tail -n 1)"
elif [ -n "$ids" ]; then
  # crictl hands the template a list for two IDs or more, one object for one: the first ID
  # is named twice so it is always a list (the parser keeps one line per ID).
  set -- $ids; crictl inspectp -o go-template --template ${template} "$@" "$1" | sed 's/^/sandbox /'
  crictl pods -q --state ready --label k8s-app=flannel | sed 's/^/flannel-sandbox /'
fi
true`;

export function parsePodNetworkState(stdout: string): PodNetworkState {
  let flannelLease: string | undefined;
  let runtimeError: string | undefined;
  const bridge: string[] = [];
  const sandboxes: Sandbox[] = [];
  const flannelSandboxes: string[] = [];
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space < 0) continue;
    const [kind, value] = [line.slice(0, space), line.slice(space + 1).trim()];
    if (kind === 'bridge') bridge.push(value);
    else if (kind === 'flannel') flannelLease = value;
    else if (kind === 'flannel-sandbox') flannelSandboxes.push(value);
    else if (kind === 'runtime-error') runtimeError = value;
    else if (kind === 'sandbox') {
      const [id = '', pod = '', ip = '', network = ''] = value.split(SEP);
      if (!sandboxes.some((s) => s.id === id)) sandboxes.push({ id, pod, ip, hostNetwork: network === 'NODE' });
    }
  }
  return { bridge, ...(flannelLease ? { flannelLease } : {}), sandboxes, flannelSandboxes, ...(runtimeError ? { runtimeError } : {}) };
}

export function podNetworkState(): Fact<PodNetworkState> {
  return { key: 'pod-network-state', become: true, script: podNetworkStateScript, parse: (stdout) => parsePodNetworkState(stdout) };
}

/** The address part of "address/bits" (or a bare address) is within the CIDR. */
function inside(cidr: Cidr, address: string): boolean {
  const value = parseIpv4(address.split('/')[0] ?? '');
  return value !== undefined && cidrContains(cidr, value);
}

/**
 * What to do so the node matches its pod CIDR; nothing when it does. Only pods with an address
 * of the cluster's pod network count (a host-network pod has the node's). Pure.
 */
export function renumberActions(state: PodNetworkState, nodeCidr: Cidr, clusterPodCidr: Cidr): RenumberActions {
  const gateway = `${formatIpv4(nodeCidr.base + 1)}/${nodeCidr.bits}`;
  const removeSandboxes: { id: string; pod: string; why: string; flannel?: true }[] = [];
  for (const s of state.sandboxes) {
    if (!s.hostNetwork && inside(clusterPodCidr, s.ip) && !inside(nodeCidr, s.ip))
      removeSandboxes.push({ id: s.id, pod: s.pod, why: `${s.ip} is outside ${nodeCidr.text}` });
  }
  if (state.flannelLease !== undefined && !inside(nodeCidr, state.flannelLease)) {
    for (const id of state.flannelSandboxes) {
      const pod = state.sandboxes.find((s) => s.id === id)?.pod ?? 'flannel';
      removeSandboxes.push({ id, pod, why: `flanneld's lease ${state.flannelLease} is outside ${nodeCidr.text}`, flannel: true });
    }
  }
  return { deleteBridge: state.bridge.some((a) => a !== gateway), removeSandboxes };
}

const describe = (a: RenumberActions): string =>
  [...(a.deleteBridge ? [`delete ${BRIDGE} (another address)`] : []), ...a.removeSandboxes.map((s) => `remove the sandbox of ${s.pod} (${s.why})`)].join('; ');

function cidrOrThrow(text: string, what: string): Cidr {
  const cidr = parseCidr(text);
  if (typeof cidr === 'string') throw new Error(`${what} "${text}": ${cidr}`);
  return cidr;
}

interface Payload {
  readonly nodeCidr: Cidr;
}

export function podsInPodCidr(clusterPodCidrText: string): Task<{ cidr: ReturnType<typeof nodePodCidr>; state: Fact<PodNetworkState> }, Payload> {
  const clusterPodCidr = cidrOrThrow(clusterPodCidrText, 'cluster.podCIDR');
  return {
    name: 'bridge and pods inside the pod CIDR',
    tags: ['pod-network'],
    facts: (ctx) => ({ cidr: nodePodCidr(ctx.host.name), state: podNetworkState() }),
    plan: (facts) => {
      if (!facts.cidr.assigned) return skip(`the node has no pod CIDR yet (${facts.cidr.detail})`);
      const nodeCidr = cidrOrThrow(facts.cidr.cidr, "the Node's spec.podCIDR");
      if (facts.state.runtimeError)
        throw new Error(`cannot list the pod sandboxes: ${facts.state.runtimeError}: is the container runtime running (systemctl status containerd)?`);
      const actions = renumberActions(facts.state, nodeCidr, clusterPodCidr);
      if (!actions.deleteBridge && actions.removeSandboxes.length === 0)
        return noChange(`${BRIDGE} and ${facts.state.sandboxes.filter((s) => !s.hostNetwork).length} pod(s) in ${nodeCidr.text}`);
      return { kind: 'run', summary: describe(actions), payload: { nodeCidr } };
    },
    apply: async (change, ctx) => {
      const startedAt = Date.now();
      const deadline = startedAt + ROUNDS_WITHIN_MS;
      const tell = waitProgressReporter<RenumberActions>(
        { describe: (a) => `the bridge and pods inside the pod CIDR (left: ${a ? describe(a) : 'unknown'})`, report: (line) => ctx.progress(line) },
        startedAt,
        ROUNDS_WITHIN_MS,
      );
      for (;;) {
        const [state] = await readFacts(ctx.connection, [podNetworkState()] as const, { label: 'read the pod network state' });
        const actions = renumberActions(state, change.payload.nodeCidr, clusterPodCidr);
        if (!actions.deleteBridge && actions.removeSandboxes.length === 0) return;
        if (Date.now() > deadline)
          throw new Error(
            `still not inside ${change.payload.nodeCidr.text} after ${ROUNDS_WITHIN_MS / 1000} s (${describe(actions)}): look at journalctl -u kubelet and crictl pods`,
          );
        ctx.log(describe(actions));
        tell(Date.now(), actions);
        // A sandbox the kubelet is tearing down or recreating at that moment may refuse removal:
        // said, and tried again next round (the state is read afresh) until the deadline.
        const { stdout } = await execChecked(
          ctx.connection,
          sh`${actions.deleteBridge ? sh`ip link delete ${BRIDGE} 2>/dev/null` : sh`:`}
${actions.removeSandboxes.some((s) => s.flannel) ? sh`rm -f ${FLANNEL_SUBNET_FILE}` : sh`:`}
for id in ${actions.removeSandboxes.map((s) => s.id)}; do
  if ! out=$(crictl rmp -f "$id" 2>&1) && crictl pods -q --id "$id" | grep -q .; then echo "pod sandbox $id not removed yet: $out"; fi
done`,
          { become: true, label: 'move the bridge and pods into the pod CIDR' },
        );
        for (const line of stdout.split('\n').filter(Boolean)) ctx.log(line);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_ROUNDS_MS));
      }
    },
  };
}
