// What a running cluster says about itself, read through its API with the state folder's
// existing admin certificate before anything is generated or changed on the controller or a
// host: the API server's version, each node's kubelet version, and which control planes are
// etcd members (etcdMembersOf). Undefined when there is no PKI
// yet or no API server answers (the admin endpoint or any control plane): a fresh install.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient, type ApiClient } from '../kube/api-client.js';
import { controllerClusterTrust } from '../pki/ca-rotation.js';
import { InputError } from '../../orchestrator/engine/input-error.js';
import { kubeletVersionsOf, type NodeListWithVersions } from '../kube/kubelet-versions.js';
import { nodeAddress, type Topology } from './topology.js';
import { pollUntil } from '../../orchestrator/engine/poll-until.js';

export interface RunningCluster {
  readonly gitVersion: string;
  /** Node name -> kubelet version. */
  readonly kubelets: ReadonlyMap<string, string>;
  /** The control planes that are etcd members (see etcdMembersOf; empty when none is visible). */
  readonly etcdMembers: readonly string[];
}

/** The API server answered but a list the plan needs did not come: the run stops before any change (exit 2, like the other refusals made before a host is touched). */
export class RunningClusterReadError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'RunningClusterReadError';
  }
}

interface PodList {
  readonly items: readonly { readonly spec: { readonly nodeName?: string } }[];
}

interface LabelledNodeList {
  readonly items: readonly { readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> } }[];
}

/** The role label kcluster's addons put on a control plane's Node (roles/addons/node-roles.ts). */
const CONTROL_PLANE_LABEL = 'node-role.kubernetes.io/control-plane';

/**
 * Pure: the control planes that are etcd members: the nodes an etcd (mirror) pod runs on, and
 * the Nodes kcluster labelled control-plane (it does so once a control plane has joined; a
 * kubelet creates its etcd mirror pod only at its next sync after its API server is up, up to a
 * minute after an install, so the pods alone once left a member out and made it "joining").
 * Not the pods' --initial-cluster flags: a member keeps the flags it first started with.
 */
export function etcdMembersOf(pods: PodList, nodes: LabelledNodeList = { items: [] }): string[] {
  const withPod = pods.items.map((p) => p.spec.nodeName).filter((n): n is string => n !== undefined && n !== '');
  const labelled = nodes.items.filter((n) => n.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined).map((n) => n.metadata.name);
  return [...new Set([...withPod, ...labelled])].sort();
}

/** Pure: each server's reason, from the AggregateError of asking them all ("https://a:6443: connection refused; ..."). */
export function noAnswerReasons(servers: readonly string[], error: unknown): string {
  const errors = error instanceof AggregateError ? error.errors : [error];
  return servers.map((server, i) => `${server}: ${(errors[i] as Error | undefined)?.message ?? 'no answer'}`).join('; ');
}

/** Pure: where to ask, in order of preference: the admin endpoint, then every control plane (one may be down). */
export function apiServersToAsk(topology: Pick<Topology, 'adminServerUrl' | 'controlPlanes' | 'apiPort'>): string[] {
  return [...new Set([topology.adminServerUrl, ...topology.controlPlanes.map((h) => `https://${nodeAddress(h)}:${topology.apiPort}`)])];
}

/**
 * How long a list the plan needs is asked for: an API server that restarts (a certificate just
 * renewed, a run killed while its static pods rolled) answers /version before it serves lists,
 * and a rerun right after must wait for it, not refuse (issue 40: certs renew killed, then
 * rerun as status said, refused with exit 2).
 */
export const LIST_WAIT_MS = 120_000;

export interface RunningClusterReadOptions {
  /** How long to keep asking for a list (default LIST_WAIT_MS). */
  readonly listWaitMs?: number;
  /**
   * How long to keep asking for any API server's version before taking "none answers" for an
   * answer (default 0: at once, as a fresh install must). A command that needs a running
   * cluster waits: its API servers may be restarting after an interrupted run (issue 40: a
   * resumed `secrets rotate-key` on one control plane was refused while its API server restarted).
   */
  readonly answerWaitMs?: number;
  /** Told why none answered, when none did (each server's last error). */
  readonly noAnswer?: (why: string) => void;
  /** Where to say what is still awaited during a long wait (a CLI's stderr). */
  readonly say?: (line: string) => void;
}

/** One try at a list: its body, or why the API server did not give it. */
type ListTry<T> = { readonly list: T } | { readonly error: string };

async function readList<T>(api: ApiClient, server: string, path: string, options: RunningClusterReadOptions): Promise<T> {
  const waitMs = options.listWaitMs ?? LIST_WAIT_MS;
  let tries = 0;
  // Every error is "not yet" here (refused, 503, a list still warming up): the probe turns it
  // into an answer, so the engine's one polling loop waits on it until the deadline.
  const outcome = await pollUntil<ListTry<T>>({
    timeoutMs: waitMs,
    intervalMs: 1_000,
    signal: new AbortController().signal,
    probe: () => {
      tries += 1;
      return api.get<T>(path).then(
        (list) => ({ list }),
        (error: unknown) => ({ error: (error as Error).message }),
      );
    },
    done: (answer) => 'list' in answer,
    ...(options.say === undefined
      ? {}
      : {
          progress: {
            describe: (answer) => `GET ${path} from ${server} (${answer !== undefined && 'error' in answer ? answer.error : 'no answer yet'})`,
            report: options.say,
          },
        }),
  });
  if (outcome.reached && 'list' in outcome.value) return outcome.value.list;
  const lastError = !outcome.reached && outcome.last !== undefined && 'error' in outcome.last ? outcome.last.error : 'no answer';
  throw new RunningClusterReadError(
    `the API server at ${server} answered its version but not GET ${path} within ${Math.round(waitMs / 1000)} s (${tries} tries): ${lastError}. ` +
      'kcluster needs that list to plan a running cluster; check that API server (kubectl get --raw /readyz?verbose) and run the command again.',
  );
}

export async function readRunningCluster(
  stateDir: string,
  topology: Pick<Topology, 'adminServerUrl' | 'controlPlanes' | 'apiPort'>,
  timeoutMs = 5_000,
  listTimeoutMs = 15_000,
  options: RunningClusterReadOptions = {},
): Promise<RunningCluster | undefined> {
  const pki = join(stateDir, 'pki');
  const files = ['ca.crt', 'admin.crt', 'admin.key'].map((f) => join(pki, f));
  if (!files.every((f) => existsSync(f))) return undefined;
  const [, clientCert, clientKey] = files.map((f) => readFileSync(f, 'utf8')) as [string, string, string];
  // During a CA rotation the API servers may serve a certificate from either CA.
  const caCert = await controllerClusterTrust(stateDir);
  // Asked in parallel, so a fresh install (nothing answers) costs one timeout at most; once
  // one answers, the others are dropped (a control plane that is down would otherwise keep
  // its request, and the process, alive until the timeout).
  const servers = apiServersToAsk(topology);
  const askAll = async (): Promise<{ server: string; version: { gitVersion: string } }> => {
    const race = new AbortController();
    try {
      return await Promise.any(
        servers.map(async (server) => ({
          server,
          version: await apiClient({ server, caCert, clientCert, clientKey }, timeoutMs, race.signal).get<{ gitVersion: string }>('/version'),
        })),
      );
    } finally {
      race.abort();
    }
  };
  // Without a wait (a fresh install must not wait) one round of asking; with one, the engine's
  // polling loop asks every 2 s and says what it awaits.
  const waitMs = options.answerWaitMs ?? 0;
  let why = 'none yet';
  const outcome = await pollUntil({
    timeoutMs: waitMs,
    intervalMs: 2_000,
    signal: new AbortController().signal,
    probe: () =>
      askAll().catch((error: unknown) => {
        why = noAnswerReasons(servers, error);
        return undefined;
      }),
    done: (answered) => answered !== undefined,
    ...(options.say !== undefined && waitMs > 0
      ? { progress: { describe: () => `an API server of the cluster to answer (${why})`, report: options.say } }
      : {}),
  });
  if (!outcome.reached || outcome.value === undefined) {
    options.noAnswer?.(why);
    return undefined;
  }
  const answered = outcome.value;
  const { server, version } = answered;
  // The lists decide the plays (which control planes join, which kubelets upgrade): an API
  // server that answered its version but not a list is asked again (LIST_WAIT_MS), then the run stops. Taking
  // an unanswered list as empty once made every control plane of a running cluster "joining".
  const api = apiClient({ server, caCert, clientCert, clientKey }, listTimeoutMs);
  const nodes = await readList<NodeListWithVersions & LabelledNodeList>(api, server, '/api/v1/nodes', options);
  const etcd = await readList<PodList>(api, server, '/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd', options);
  return {
    gitVersion: version.gitVersion,
    kubelets: new Map(kubeletVersionsOf(nodes)),
    etcdMembers: etcdMembersOf(etcd, nodes),
  };
}
