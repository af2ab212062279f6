// etcd's host side on a control plane: the system user it runs as, its data dir's owner, and
// on a running cluster its membership (added as a learner, then promoted).
import type { Fact } from '../../src/orchestrator/engine/fact.js';
import { pollUntil } from '../../src/orchestrator/engine/poll-until.js';
import { READY_TIMEOUT_VAR, readyTimeoutMs } from '../../src/kubernetes/cluster/ready-timeout.js';
import { etcdJoinState, memberAddPlan, selfMember, type EtcdJoinState, type EtcdSelf } from '../../src/kubernetes/etcd/etcd-join.js';
import { parseMemberList } from '../../src/kubernetes/etcd/etcd-members.js';
import { etcdctlAt, LOCAL_ETCD } from '../../src/kubernetes/etcd/etcdctl.js';
import { noChange } from '../../src/orchestrator/engine/change.js';
import type { HostContext, Task } from '../../src/orchestrator/engine/types.js';
import { sh } from '../../src/orchestrator/ssh/quote.js';
import { execChecked } from '../../src/orchestrator/ssh/connection.js';
import { createEtcdUser, ETCD_DATA_DIR, ETCD_USER, etcdDataOwnership, etcdUser } from '../../src/kubernetes/etcd/etcd-user.js';

/** The etcd user, made before anything it owns (CIS 1.1.12: etcd does not run as root). */
export function etcdUserTask(): Task<{ user: typeof etcdUser }, null> {
  return {
    name: 'user etcd',
    tags: ['control-plane', 'etcd'],
    facts: () => ({ user: etcdUser }),
    plan: ({ user }) =>
      user.exists
        ? noChange(`etcd runs as uid ${user.uid}, gid ${user.gid}`)
        : { kind: 'create', summary: `create the system user and group ${ETCD_USER} (etcd runs as it, owns ${ETCD_DATA_DIR} and its keys)`, payload: null },
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, createEtcdUser, { become: true, label: 'create the etcd user' });
    },
    invalidates: ['etcd-user', 'etcd-data-ownership'],
  };
}

/** Everything under the data dir owned by the etcd user (a restore, or etcd once run as root, left root's files). */
export function etcdDataOwnedTask(): Task<{ data: typeof etcdDataOwnership }, null> {
  return {
    name: `${ETCD_DATA_DIR} owned by ${ETCD_USER}`,
    tags: ['control-plane', 'etcd'],
    facts: () => ({ data: etcdDataOwnership }),
    plan: ({ data }) =>
      data.foreign === 0
        ? noChange(`everything under ${ETCD_DATA_DIR} belongs to ${ETCD_USER}`)
        : { kind: 'update', summary: `give ${data.foreign} files under ${ETCD_DATA_DIR} to ${ETCD_USER}:${ETCD_USER}`, payload: null },
    apply: async (_change, ctx) => {
      await execChecked(ctx.connection, sh`chown -R ${`${ETCD_USER}:${ETCD_USER}`} ${ETCD_DATA_DIR}`, { become: true, label: 'etcd data ownership' });
    },
  };
}

/** This host as an etcd member, and the client URLs of the other control planes' members (whom to ask). */
export type EtcdPlace = (ctx: HostContext) => { readonly self: EtcdSelf; readonly others: readonly string[] };

/** The etcd join state of the host `place` describes (one fact: the add, the manifest and the promotion read it alike). */
export function joinStateAt(place: EtcdPlace, ctx: HostContext): Fact<EtcdJoinState> {
  const { self, others } = place(ctx);
  return etcdJoinState(others, self.peerUrl);
}

/**
 * On a running cluster, a control plane that is no member yet is added to etcd as a learner,
 * through the other control planes' members, before its manifest is written (its etcd then
 * starts with --initial-cluster-state=existing). Refused, before anything changes on this
 * host's etcd, when no member answers, when etcd already has a learner (one at a time) or when
 * the host holds etcd data of another membership.
 */
export function etcdMemberAddedTask(place: EtcdPlace): Task<{ join: Fact<EtcdJoinState> }, null> {
  return {
    name: 'etcd member (added as a learner when new)',
    tags: ['control-plane', 'etcd'],
    facts: (ctx) => ({ join: joinStateAt(place, ctx) }),
    plan: ({ join }, ctx) => {
      const { self, others } = place(ctx);
      const plan = memberAddPlan(join, self, others);
      if (plan.kind === 'refuse') throw new Error(`${self.name}: cannot join the running etcd: ${plan.why}`);
      return plan.kind === 'member' ? noChange(plan.detail) : { kind: 'create', summary: plan.detail, payload: null };
    },
    // The plan's facts may predate this run's etcdctl and client certificate: the membership is
    // read again here, and a member already added (an earlier run stopped after the add) is kept.
    apply: async (_change, ctx) => {
      const { self, others } = place(ctx);
      const ask = etcdctlAt(others);
      const listed = await execChecked(ctx.connection, sh`${ask} --dial-timeout=3s --command-timeout=10s member list -w simple`, {
        become: true,
        label: 'etcd member list',
      });
      const plan = memberAddPlan({ kind: 'members', dataDir: false, members: parseMemberList(listed.stdout) }, self, others);
      if (plan.kind === 'refuse') throw new Error(`${self.name}: cannot join the running etcd: ${plan.why}`);
      if (plan.kind === 'member') return;
      await execChecked(ctx.connection, sh`${ask} --dial-timeout=3s --command-timeout=15s member add ${self.name} --peer-urls=${self.peerUrl} --learner`, {
        become: true,
        label: 'etcd member add --learner',
      });
    },
    invalidates: ['etcd-join'],
  };
}

const PROMOTE_TIMEOUT_MS = 300_000;

/**
 * A learner is promoted to a voting member once it has caught up with the leader (etcd refuses
 * before: "can only promote a learner member which is in sync with leader"), through the other
 * members (a learner does not answer for the cluster). Before the API server's manifest: that
 * API server talks to this member only. On the only control plane, whose member always votes,
 * the wait still holds the API server's manifest until a restarting etcd answers: written at
 * once, the new API server fails against the etcd that is not back yet and the kubelet's
 * back-off makes the whole restart slower (docs/developers/measurements.md, certs renew on one control plane).
 */
export function etcdMemberPromotedTask(place: EtcdPlace): Task<{ join: Fact<EtcdJoinState> }, null> {
  return {
    name: 'etcd member voting (a learner promoted once caught up)',
    tags: ['control-plane', 'etcd'],
    facts: (ctx) => ({ join: joinStateAt(place, ctx) }),
    plan: ({ join }, ctx) => {
      const { self } = place(ctx);
      if (join.kind === 'started' && join.learner === false) return noChange(`${self.name} is a voting etcd member`);
      if (join.kind === 'started' && join.learner === 'unknown')
        return { kind: 'wait', summary: `wait for etcd on ${self.name} to answer; promote it if it is a learner`, payload: null };
      return { kind: 'run', summary: `promote the etcd learner ${self.name} to a voting member once it has caught up with the leader`, payload: null };
    },
    apply: async (_change, ctx) => {
      const { self, others } = place(ctx);
      // The only control plane has no other member to ask (and cannot be a learner): its own.
      const ask = etcdctlAt(others.length > 0 ? others : [LOCAL_ETCD]);
      let lastError = '';
      const timeoutMs = readyTimeoutMs(ctx.vars, PROMOTE_TIMEOUT_MS, ctx.host.name);
      const outcome = await pollUntil({
        timeoutMs,
        intervalMs: 2000,
        signal: ctx.signal,
        probe: async () => {
          const listed = await ctx.connection.exec(sh`${ask} --dial-timeout=3s --command-timeout=10s member list -w simple`, {
            become: true,
            label: 'etcd member list',
            timeoutMs: 30_000,
          });
          if (listed.code !== 0) return ((lastError = listed.stderr.trim().split('\n').at(-1) ?? `exit ${listed.code}`), false);
          const mine = selfMember(parseMemberList(listed.stdout), self);
          if (mine === undefined) throw new Error(`${self.name} (${self.peerUrl}) is not an etcd member: it was removed while joining; apply again`);
          if (!mine.learner) return true;
          const promoted = await ctx.connection.exec(sh`${ask} --dial-timeout=3s --command-timeout=10s member promote ${mine.id}`, {
            become: true,
            label: 'etcd member promote',
            timeoutMs: 30_000,
          });
          if (promoted.code === 0) return true;
          lastError = promoted.stderr.trim().split('\n').at(-1) ?? `exit ${promoted.code}`;
          ctx.log(`etcd: ${self.name} not promoted yet: ${lastError}`);
          return false;
        },
        done: (voting) => voting,
        progress: {
          describe: () => `${self.name} promoted to a voting etcd member (last answer: ${lastError || 'none'})`,
          report: (line) => ctx.progress(line),
        },
      });
      if (outcome.reached) return;
      if (outcome.interrupted) throw new Error('interrupted while waiting to promote the etcd learner');
      throw new Error(
        `${self.name}: the etcd learner was not promoted within ${timeoutMs / 1000} s (var ${READY_TIMEOUT_VAR} sets how long to wait); last answer: ${lastError || 'none'}. It stays a learner (no vote, no effect on quorum): look at its etcd log (crictl logs on ${self.name}), then apply again`,
      );
    },
    invalidates: ['etcd-join'],
  };
}
