// How a control plane's etcd member takes part in a running cluster, read in one fact:
// - its manifest already names how it started (--initial-cluster and -state): a member, whose
//   manifest keeps those flags as they are (etcd reads them only on its first start, so
//   rewriting them when the membership changes would restart every member for nothing), and
//   whether it is still a learner;
// - no manifest yet: the membership as the other control planes' members list it, so it can
//   be added as a learner (etcd's own advice, and kubeadm's since 1.32: a new member does not
//   count for quorum until it has caught up) and started with --initial-cluster-state=existing
//   and exactly the members the cluster has (etcd refuses a start whose list differs).
// The decisions are pure functions over that fact.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { parseMemberList, type ListedMember } from './etcd-members.js';
import { ETCD_CLIENT_CERT, ETCDCTL, etcdctlAt } from './etcdctl.js';
import { ETCD_DATA_DIR } from './etcd-user.js';

const ETCD_MANIFEST = '/etc/kubernetes/manifests/etcd.yaml';

export type EtcdJoinState =
  | { readonly kind: 'started'; readonly initialCluster: string; readonly initialClusterState: 'new' | 'existing'; readonly learner: boolean | 'unknown' }
  | { readonly kind: 'members'; readonly dataDir: boolean; readonly members: readonly ListedMember[] }
  | { readonly kind: 'unreachable'; readonly dataDir: boolean; readonly clientReady: boolean; readonly detail: string };

/** This host as an etcd member: its name and the peer URL it advertises. */
export interface EtcdSelf {
  readonly name: string;
  readonly peerUrl: string;
}

export function parseEtcdJoinState(stdout: string): EtcdJoinState {
  const lines = stdout.split('\n');
  const head = lines[0]?.trim();
  if (head === 'manifest') {
    const flag = (name: string) =>
      lines
        .find((l) => l.startsWith(`--${name}=`))
        ?.slice(name.length + 3)
        .trim();
    const initialCluster = flag('initial-cluster');
    if (initialCluster === undefined) throw new Error(`${ETCD_MANIFEST} names no --initial-cluster`);
    const state = flag('initial-cluster-state') ?? 'new';
    if (state !== 'new' && state !== 'existing') throw new Error(`${ETCD_MANIFEST}: unexpected --initial-cluster-state=${state}`);
    const status = lines
      .find((l) => l.startsWith('status '))
      ?.slice('status '.length)
      .trim();
    return { kind: 'started', initialCluster, initialClusterState: state, learner: status === 'learner' ? true : status === 'voting' ? false : 'unknown' };
  }
  if (head !== 'data' && head !== 'empty') throw new Error(`unexpected etcd join state output "${stdout.slice(0, 200)}"`);
  const dataDir = head === 'data';
  const rest = lines.slice(2).join('\n');
  if (lines[1]?.trim() === 'members') return { kind: 'members', dataDir, members: parseMemberList(rest) };
  const clientReady = lines[1]?.trim() !== 'no-client';
  return { kind: 'unreachable', dataDir, clientReady, detail: rest.trim().split('\n').slice(-2).join(' ').slice(0, 300) };
}

/**
 * `others`: the client URLs of the inventory's other control planes (the members to ask);
 * `self`: this host's peer URL, how the member list names it before it has started.
 */
export function etcdJoinState(others: readonly string[], selfPeerUrl: string): Fact<EtcdJoinState> {
  const ask = etcdctlAt(others);
  // A started member's learner status comes from the others' member list (its last field),
  // which answers right after a promotion, when the member's own endpoint may not yet; with
  // no other member (one control plane), from its own `endpoint status` ("isLearner":true
  // while it is one, the field left out when false). Neither answering is "unknown".
  const status =
    others.length > 0
      ? sh`if l=$(${ask} --dial-timeout=2s --command-timeout=5s member list -w simple 2>/dev/null); then case "$(printf '%s\n' "$l" | grep -F -- ${`, ${selfPeerUrl},`})" in *', true') echo 'status learner';; '') echo 'status unknown';; *) echo 'status voting';; esac; else echo 'status unknown'; fi`
      : sh`if s=$(${ETCDCTL} --dial-timeout=2s --command-timeout=3s endpoint status -w json 2>/dev/null); then case "$s" in *'"isLearner":true'*) echo 'status learner';; *) echo 'status voting';; esac; else echo 'status unknown'; fi`;
  return {
    key: 'etcd-join',
    become: true,
    script: sh`if grep -qs -- --initial-cluster= ${ETCD_MANIFEST}; then echo manifest; grep -o -- '--initial-cluster[a-z-]*=[^ "]*' ${ETCD_MANIFEST}; ${status}; exit 0; fi; if [ -d ${`${ETCD_DATA_DIR}/member`} ]; then echo data; else echo empty; fi; [ -x /usr/local/bin/etcdctl ] && [ -f ${ETCD_CLIENT_CERT} ] || { echo no-client; exit 0; }; if out=$(${ask} --dial-timeout=3s --command-timeout=10s member list -w simple 2>&1); then echo members; printf '%s\n' "$out"; else echo unreachable; printf '%s\n' "$out" | tail -n 3; fi; exit 0`,
    parse: parseEtcdJoinState,
  };
}

/** The member of `members` that is this host (an added member that has not started has no name: matched by peer URL). */
export function selfMember(members: readonly ListedMember[], self: EtcdSelf): ListedMember | undefined {
  return members.find((m) => m.peerUrls.includes(self.peerUrl));
}

export type MemberAddPlan =
  { readonly kind: 'member'; readonly detail: string } | { readonly kind: 'add'; readonly detail: string } | { readonly kind: 'refuse'; readonly why: string };

/** Whether this control plane's member must be added (as a learner), is one already, or cannot be. */
export function memberAddPlan(state: EtcdJoinState, self: EtcdSelf, others: readonly string[]): MemberAddPlan {
  if (state.kind === 'started')
    return { kind: 'member', detail: `etcd member ${self.name} (started with --initial-cluster-state=${state.initialClusterState})` };
  if (state.kind === 'unreachable') {
    if (!state.clientReady)
      return {
        kind: 'add',
        detail: `add ${self.name} (${self.peerUrl}) to etcd as a learner, through a running member (etcdctl and its client certificate are installed by this run first)`,
      };
    return {
      kind: 'refuse',
      why: `no etcd member of the running cluster answered at ${others.join(', ') || '(no other control plane in the inventory)'} (${state.detail || 'no detail'}): a member is added through a healthy one; check the other control planes, then apply again`,
    };
  }
  const mine = selfMember(state.members, self);
  if (mine !== undefined) return { kind: 'member', detail: `${self.name} is an etcd ${mine.learner ? 'learner' : 'member'} (${mine.id}), started next` };
  if (state.dataDir) {
    return {
      kind: 'refuse',
      why: `${ETCD_DATA_DIR}/member holds etcd data but ${self.name} is not a member of the running cluster (members: ${describe(state.members)}): it comes from an earlier cluster or membership; run kcluster reset on it (kcluster reset -i INVENTORY --limit ${self.name}) or move ${ETCD_DATA_DIR} away, then apply again`,
    };
  }
  const learner = state.members.find((m) => m.learner);
  if (learner !== undefined) {
    return {
      kind: 'refuse',
      why: `etcd already has a learner, ${learner.name || '(not started)'} ${learner.peerUrls.join(' ')} (${learner.id}), and takes one at a time: apply again with its host in the inventory so it is started and promoted, or remove it (etcdctl member remove ${learner.id}) if that host is gone`,
    };
  }
  return { kind: 'add', detail: `add ${self.name} (${self.peerUrl}) to etcd as a learner through a running member; members now: ${describe(state.members)}` };
}

const describe = (members: readonly ListedMember[]): string =>
  members.map((m) => `${m.name || '(not started)'}${m.learner ? ' (learner)' : ''}`).join(', ') || 'none';

/**
 * How this member starts when the cluster already runs: as it did (its manifest's flags), or
 * as a new member of the existing cluster with every member listed (itself included: in
 * --check, before it is added, it is listed as it will be).
 */
export function runningClusterStart(
  state: EtcdJoinState,
  self: EtcdSelf,
): { initialCluster: string; initialClusterState: 'new' | 'existing' } | { skip: string } {
  if (state.kind === 'started') return { initialCluster: state.initialCluster, initialClusterState: state.initialClusterState };
  if (state.kind === 'unreachable') return { skip: `etcd's member list is known once ${self.name} is added to the running cluster` };
  const entries = state.members.map((m) => {
    if (m.peerUrls.includes(self.peerUrl)) return `${self.name}=${self.peerUrl}`;
    if (m.name === '')
      throw new Error(`etcd has a member that has not started (${m.peerUrls.join(' ')}, ${m.id}) besides ${self.name}: etcd starts one new member at a time`);
    return `${m.name}=${m.peerUrls[0] ?? ''}`;
  });
  if (selfMember(state.members, self) === undefined) entries.push(`${self.name}=${self.peerUrl}`);
  return { initialCluster: entries.join(','), initialClusterState: 'existing' };
}
