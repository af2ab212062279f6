// The etcd snapshot taken before control planes join a running cluster: planned while a joining
// host is no member, named with its file; nothing once they all are; refused when etcd's
// members cannot be read.
import { describe, expect, it } from 'vitest';
import type { ClusterInputs } from '../../../src/kubernetes/cluster/cluster-inputs.js';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';
import type { HostSettings } from '../../../src/orchestrator/inventory/model.js';
import { etcdMemberList } from '../../../src/kubernetes/etcd/etcd-member-list.js';
import { snapshotBeforeJoinRole } from '../../../roles/control-plane/snapshot-before-join.js';

const cp = (name: string, ip: string) => ({ name, ssh: { address: ip } }) as HostSettings;
const inputs = {
  inventory: { stateDir: '/state' },
  topology: { controlPlanes: [cp('cp1', '10.0.0.1'), cp('cp2', '10.0.0.2'), cp('cp3', '10.0.0.3')] },
} as unknown as ClusterInputs;
const task = snapshotBeforeJoinRole(inputs, ['cp2', 'cp3'], 'etcd-x.db').tasks[0]!;
const plan = (listed: string) => task.plan({ members: etcdMemberList.parse(listed, 0) } as never, {} as HostContext);
const cp1 = '8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false';

describe('etcd snapshot before control planes join', () => {
  it('is taken while a joining host is no member, and names its file', () => {
    expect(plan(`listed\n${cp1}\n`)).toEqual({
      kind: 'run',
      summary: 'save an etcd snapshot to /state/backups/etcd-x.db (verified) before cp2, cp3 join',
      payload: null,
    });
    expect(plan(`listed\n${cp1}\na1, started, cp2, https://10.0.0.2:2380, https://10.0.0.2:2379, false\n`)).toMatchObject({
      kind: 'run',
      summary: expect.stringContaining('before cp3 joins'),
    });
  });
  it('is not needed once every joining host is a member (a learner added but not started counts)', () => {
    expect(
      plan(`listed\n${cp1}\na1, started, cp2, https://10.0.0.2:2380, https://10.0.0.2:2379, false\nb2, unstarted, , https://10.0.0.3:2380, , true\n`),
    ).toEqual({ kind: 'none', reason: 'cp2, cp3 are etcd members already' });
  });
  it('refuses when etcd does not answer', () => {
    expect(() => plan('failed\nError: context deadline exceeded')).toThrow(
      /etcd's members cannot be read on this control plane \(Error: context deadline exceeded\)/,
    );
  });
});
