// How a control plane's etcd member joins a running cluster: the join state read on the host,
// whether it is added as a learner or refused, and the flags it starts with.
import { describe, expect, it } from 'vitest';
import { memberAddPlan, parseEtcdJoinState, runningClusterStart, type EtcdJoinState } from '../../../src/kubernetes/etcd/etcd-join.js';

const self = { name: 'cp2', peerUrl: 'https://10.0.0.2:2380' };
const others = ['https://10.0.0.1:2379', 'https://10.0.0.3:2379'];
const cp1 = '8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false';
const cp2Added = 'a8266ecf031671f3, unstarted, , https://10.0.0.2:2380, , true';
const members = (...lines: string[]): EtcdJoinState => parseEtcdJoinState(['empty', 'members', ...lines].join('\n'));

describe('the etcd join state of a control plane', () => {
  it('keeps the start flags of a member whose manifest exists, with its learner status', () => {
    const state = parseEtcdJoinState(
      'manifest\n--initial-cluster=cp1=https://10.0.0.1:2380\n--initial-cluster-state=new\n--initial-cluster-token=lab\nstatus voting\n',
    );
    expect(state).toEqual({ kind: 'started', initialCluster: 'cp1=https://10.0.0.1:2380', initialClusterState: 'new', learner: false });
    expect(parseEtcdJoinState('manifest\n--initial-cluster=a=b\n--initial-cluster-state=existing\nstatus learner')).toMatchObject({
      initialClusterState: 'existing',
      learner: true,
    });
    expect(parseEtcdJoinState('manifest\n--initial-cluster=a=b\nstatus unknown')).toMatchObject({ initialClusterState: 'new', learner: 'unknown' });
    expect(() => parseEtcdJoinState('manifest\nstatus voting')).toThrow(/names no --initial-cluster/);
  });
  it('reads the membership from the other members when there is no manifest, and says when none answers', () => {
    expect(members(cp1)).toMatchObject({ kind: 'members', dataDir: false, members: [{ name: 'cp1', learner: false }] });
    expect(parseEtcdJoinState('data\nunreachable\nError: context deadline exceeded')).toEqual({
      kind: 'unreachable',
      dataDir: true,
      clientReady: true,
      detail: 'Error: context deadline exceeded',
    });
    expect(parseEtcdJoinState('empty\nno-client\n')).toMatchObject({ kind: 'unreachable', clientReady: false });
    expect(() => parseEtcdJoinState('garbage')).toThrow(/unexpected etcd join state/);
  });
});

describe('adding a control plane to the running etcd', () => {
  it('adds a new control plane as a learner, once', () => {
    expect(memberAddPlan(members(cp1), self, others)).toEqual({
      kind: 'add',
      detail: 'add cp2 (https://10.0.0.2:2380) to etcd as a learner through a running member; members now: cp1',
    });
    expect(memberAddPlan(members(cp1, cp2Added), self, others)).toEqual({ kind: 'member', detail: 'cp2 is an etcd learner (a8266ecf031671f3), started next' });
    expect(memberAddPlan(parseEtcdJoinState('manifest\n--initial-cluster=cp1=x\nstatus voting'), self, others).kind).toBe('member');
  });
  it('plans the add in --check on a host without etcdctl or its client certificate yet', () => {
    expect(memberAddPlan(parseEtcdJoinState('empty\nno-client'), self, others).kind).toBe('add');
  });
  it('refuses when no member answers, another learner waits, or the host holds data of another membership', () => {
    const refused = (state: EtcdJoinState) => {
      const plan = memberAddPlan(state, self, others);
      return plan.kind === 'refuse' ? plan.why : `not refused: ${plan.kind}`;
    };
    expect(refused(parseEtcdJoinState('empty\nunreachable\nError: context deadline exceeded'))).toMatch(
      /^no etcd member of the running cluster answered at https:\/\/10\.0\.0\.1:2379, https:\/\/10\.0\.0\.3:2379 \(Error: context deadline exceeded\)/,
    );
    expect(refused(members(cp1, 'b8266ecf031671f3, unstarted, , https://10.0.0.3:2380, , true'))).toMatch(
      /^etcd already has a learner, \(not started\) https:\/\/10\.0\.0\.3:2380 \(b8266ecf031671f3\), and takes one at a time/,
    );
    expect(refused(parseEtcdJoinState(['data', 'members', cp1].join('\n')))).toMatch(
      /^\/var\/lib\/etcd\/member holds etcd data but cp2 is not a member of the running cluster \(members: cp1\).*kcluster reset/,
    );
  });
});

describe('how a member of a running cluster starts', () => {
  it('as it did, when its manifest says so', () => {
    expect(
      runningClusterStart(parseEtcdJoinState('manifest\n--initial-cluster=cp1=https://10.0.0.1:2380\n--initial-cluster-state=new\nstatus voting'), self),
    ).toEqual({ initialCluster: 'cp1=https://10.0.0.1:2380', initialClusterState: 'new' });
  });
  it('as a new member of the existing cluster, with every member listed and itself named (added or about to be)', () => {
    const expected = { initialCluster: 'cp1=https://10.0.0.1:2380,cp2=https://10.0.0.2:2380', initialClusterState: 'existing' };
    expect(runningClusterStart(members(cp1, cp2Added), self)).toEqual(expected);
    expect(runningClusterStart(members(cp1), self)).toEqual(expected);
    expect(runningClusterStart(parseEtcdJoinState('empty\nno-client'), self)).toEqual({
      skip: "etcd's member list is known once cp2 is added to the running cluster",
    });
  });
  it('never beside another member that has not started', () => {
    expect(() => runningClusterStart(members(cp1, 'b8266ecf031671f3, unstarted, , https://10.0.0.3:2380, , true'), self)).toThrow(
      /has not started.*one new member at a time/,
    );
  });
});
