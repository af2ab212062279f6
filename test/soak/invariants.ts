// What must hold after every step, each a small check that returns its verdict: etcd's voting
// members are the inventory's control planes; the Nodes are the inventory's hosts, all Ready; no
// pod is left on a Node that is gone;
// `apply --check` has nothing to change and leaves the state folder byte-identical; `status`
// says the last run completed; no CA rotation is left under way; every certificate on every
// host chains to a current CA; no temporary file is left on a host or in the state folder; the
// user's Deployment is available, the bare pod runs and the Service answers through its NodePort. The checks that
// wait for the cluster to settle (a Node re-registering, a pod restarting) wait a bounded time.
import { changesIn, poller, until } from '../e2e/support/e2e-support.js';
import { kcluster } from '../integration/support/test-lab.js';
import { FIXED_HOST, inventoryHosts, type ClusterModel } from './cluster-model.js';
import { deploymentAvailable, nodeReadiness, parseEtcdMemberList, podPhase, podsOnMissingNodes, setDifference } from './cluster-readouts.js';
import { certificateProblems, hostTempFiles, stateTempFiles } from './host-invariants.js';
import { etcdMemberList, hostAddress, hostName, kubectl, rotationUnderWay, soakInventoryFile, stateDir } from './soak-lab.js';
import { WEB_NODE_PORT } from './workload.js';
import { digestDifference, stateFolderDigest } from './state-digest.js';

export interface InvariantVerdict {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

const SETTLE_MS = 240_000;

/** A check that waits up to `timeoutMs` for `probe` to say ok; the last reason when it never does. */
async function settles(name: string, timeoutMs: number, probe: () => Promise<string | undefined>): Promise<InvariantVerdict> {
  const started = Date.now();
  let reason = '';
  try {
    await until(name, timeoutMs, async () => {
      const problem = await probe();
      if (problem === undefined) return true;
      reason = problem;
      return undefined;
    });
    return { name, ok: true, detail: `after ${((Date.now() - started) / 1000).toFixed(0)} s` };
  } catch (error) {
    return { name, ok: false, detail: reason || (error as Error).message };
  }
}

const etcdMembersAreControlPlanes = (model: ClusterModel): Promise<InvariantVerdict> =>
  settles('etcd members = control planes, all started and voting', 60_000, async () => {
    const members = parseEtcdMemberList(await etcdMemberList(model.controlPlanes[0]!));
    const expected = model.controlPlanes.map(hostName).sort();
    const difference = setDifference(expected, members.map((m) => m.name).sort());
    if (difference !== '') return difference;
    const odd = members
      .filter((m) => !m.started || m.learner)
      .map((m) => `${m.name} ${m.started ? 'started' : 'unstarted'} ${m.learner ? 'learner' : 'voting'}`);
    return odd.length > 0 ? odd.join(', ') : undefined;
  });

const nodesAreInventoryHostsAndReady = (model: ClusterModel): Promise<InvariantVerdict> =>
  settles('Nodes = inventory hosts, all Ready', SETTLE_MS, async () => {
    const nodes = nodeReadiness(await kubectl('get', 'nodes', '-o', 'json'));
    const difference = setDifference(inventoryHosts(model).map(hostName), [...nodes.keys()].sort());
    if (difference !== '') return difference;
    const notReady = [...nodes].filter(([, ready]) => !ready).map(([name]) => name);
    return notReady.length > 0 ? `not Ready: ${notReady.join(', ')}` : undefined;
  });

async function applyCheckChangesNothing(): Promise<InvariantVerdict> {
  const name = 'apply --check changes nothing and leaves the state folder as it was';
  const before = stateFolderDigest(stateDir);
  const r = await kcluster(['apply', '-i', soakInventoryFile, '--check', '--output', 'json']);
  const written = digestDifference(before, stateFolderDigest(stateDir));
  const wrote = written.length > 0 ? `; the state folder changed: ${written.join(', ')}` : '';
  if (r.code === 0) return { name, ok: written.length === 0, detail: `exit 0${wrote}` };
  const changes = r.code === 3 ? changesIn(r.stdout) : `${r.stderr.slice(-1500)}${r.stdout.slice(-1500)}`;
  return { name, ok: false, detail: `exit ${r.code}: ${changes.slice(0, 3000)}${wrote}` };
}

async function certificatesChain(model: ClusterModel): Promise<InvariantVerdict> {
  const problems = await certificateProblems(model);
  return { name: 'every certificate on every host chains to a current CA', ok: problems.length === 0, detail: problems.join('; ') || 'all' };
}

async function noTempFiles(model: ClusterModel): Promise<InvariantVerdict> {
  const found = [...(await hostTempFiles(model)), ...stateTempFiles().map((f) => `state:${f}`)];
  return { name: 'no temporary file on a host or in the state folder', ok: found.length === 0, detail: found.join(', ') || 'none' };
}

async function statusSaysCompleted(): Promise<InvariantVerdict> {
  const name = 'status: the last run completed';
  const r = await kcluster(['status', '-i', soakInventoryFile, '-o', 'json']);
  if (r.code !== 0) return { name, ok: false, detail: `status exited ${r.code}: ${r.stderr.slice(-1000)}` };
  const last = (JSON.parse(r.stdout) as { last: { command: string; result: string } }).last;
  return { name, ok: last.result === 'completed', detail: `${last.command}: ${last.result}` };
}

const noRotationUnderWay = async (): Promise<InvariantVerdict> => ({
  name: 'no CA or key rotation left under way',
  ok: !rotationUnderWay(),
  detail: rotationUnderWay() ? 'pki/rotation/state.json is still in the state folder' : 'none',
});

/** A removed host's pods do not linger: every pod is bound to a Node that exists (or to none yet). */
const noPodOnAMissingNode = (): Promise<InvariantVerdict> =>
  settles('every pod is on a Node that exists', 60_000, async () => {
    const nodes = [...nodeReadiness(await kubectl('get', 'nodes', '-o', 'json')).keys()];
    const lingering = podsOnMissingNodes(await kubectl('get', 'pods', '-A', '-o', 'json'), nodes);
    return lingering.length > 0 ? lingering.join(', ') : undefined;
  });

const webDeploymentAvailable = (): Promise<InvariantVerdict> =>
  settles('the Deployment web is available', SETTLE_MS, async () =>
    deploymentAvailable(await kubectl('get', 'deployment', 'web', '-o', 'json')) ? undefined : 'not every replica available',
  );

/**
 * The user's Service answers through the NodePort 20 times in a row (about 5 s) within 3 minutes:
 * the next step starts from a cluster that serves, and how long it took to get there after the
 * step (a rebooted worker's pod network catching up) is in the verdict.
 */
async function serviceAnswers(): Promise<InvariantVerdict> {
  const name = 'the Service answers through the NodePort (20 in a row)';
  const started = Date.now();
  const probe = poller(`http://${hostAddress(FIXED_HOST)}:${WEB_NODE_PORT}/`);
  try {
    await until(name, 180_000, async () => (probe.counts.streak >= 20 ? true : undefined));
    return { name, ok: true, detail: `after ${((Date.now() - started) / 1000).toFixed(0)} s (${probe.counts.failed} failed before)` };
  } catch {
    return {
      name,
      ok: false,
      detail: `no 20 in a row in 180 s: ${probe.counts.ok} answers, ${probe.counts.failed} failures, last: ${probe.counts.failures.slice(-3).join('; ')}`,
    };
  } finally {
    await probe.stop();
  }
}

const barePodRunning = (): Promise<InvariantVerdict> =>
  settles('the bare pod soak-bare runs', 60_000, async () => {
    const phase = podPhase(await kubectl('get', 'pod', 'soak-bare', '-o', 'json'));
    return phase === 'Running' ? undefined : `phase ${phase}`;
  });

/** Every invariant, one after the other (the settling ones first, so the others see a settled cluster); a check that throws is a violation too. */
export async function checkInvariants(model: ClusterModel): Promise<InvariantVerdict[]> {
  const checks: [string, () => Promise<InvariantVerdict>][] = [
    ['etcd members', () => etcdMembersAreControlPlanes(model)],
    ['Nodes', () => nodesAreInventoryHostsAndReady(model)],
    ['pods on Nodes', noPodOnAMissingNode],
    ['Deployment', webDeploymentAvailable],
    ['bare pod', barePodRunning],
    ['Service', serviceAnswers],
    ['status', statusSaysCompleted],
    ['rotation', noRotationUnderWay],
    ['certificates', () => certificatesChain(model)],
    ['temporary files', () => noTempFiles(model)],
    ['apply --check', applyCheckChangesNothing],
  ];
  const verdicts: InvariantVerdict[] = [];
  for (const [name, check] of checks) {
    try {
      verdicts.push(await check());
    } catch (error) {
      verdicts.push({ name, ok: false, detail: `the check itself failed: ${(error as Error).message}` });
    }
  }
  return verdicts;
}
