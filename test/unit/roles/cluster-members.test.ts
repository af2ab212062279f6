// What the cluster holds that the inventory does not: etcd members and Nodes no inventory host
// matches, reported as a warning with the command that removes them, never removed. And the
// engine's warnings: shown on the task's line.
import { describe, expect, it } from 'vitest';
import { clusterMembersTask, strayMembersWarning } from '../../../roles/addons/cluster-members.js';
import { etcdMemberList } from '../../../src/kubernetes/etcd/etcd-member-list.js';
import { parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { HostContext } from '../../../src/orchestrator/engine/types.js';
import { plainLine } from '../../../src/orchestrator/report/plain-reporter.js';

const loaded = parseInventory(
  'ssh: {agent: true}\ncluster: {name: c}\nhosts:\n  - { name: cp2, address: 10.0.0.2, roles: [control-plane] }\n  - { name: cp3, address: 10.0.0.3, roles: [control-plane] }\n  - { name: w1, address: 10.0.0.9, roles: [worker] }\n',
  '/x/inv.yaml',
  { env: {} },
);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
const inventory = loaded.inventory;
const member = (name: string, ip: string, id = `${name}1d`) => ({ id, name, peerUrls: [`https://${ip}:2380`] });

describe('members and Nodes the inventory does not know', () => {
  it('none: no warning', () => {
    expect(
      strayMembersWarning({ inventory }, [member('cp2', '10.0.0.2'), member('cp3', '10.0.0.3'), member('', '10.0.0.3', 'ab')], ['cp2', 'cp3', 'w1']),
    ).toBeUndefined();
  });
  it('a dead control plane deleted from the cluster but left in etcd, and a Node left behind: named, with the command, never removed', () => {
    expect(
      strayMembersWarning(
        { inventory },
        [member('cp1', '10.0.0.1', '8e9e05c52164694d'), member('cp2', '10.0.0.2'), member('cp3', '10.0.0.3')],
        ['cp2', 'cp3', 'w1', 'w0'],
      ),
    ).toBe(
      'etcd member cp1 (8e9e05c52164694d, https://10.0.0.1:2380) matches no control plane of the inventory; Node w0 matches no host of the inventory: kcluster leaves them in place; ' +
        'if the host is gone for good, remove them with kcluster remove-node -i /x/inv.yaml cp1 --unreachable; kcluster remove-node -i /x/inv.yaml w0 --unreachable (a stray etcd member counts for quorum)',
    );
  });
  it('the task changes nothing and carries the warning', () => {
    const task = clusterMembersTask({ inventory });
    const etcd = etcdMemberList.parse('listed\n8e9e05c52164694d, started, cp1, https://10.0.0.1:2380, https://10.0.0.1:2379, false\n', 0);
    const nodes = { reachable: true as const, nodes: { cp2: {}, cp3: {}, w1: {} }, metadata: {} };
    const change = task.plan({ etcd, nodes }, {} as HostContext);
    expect(change).toMatchObject({ kind: 'none', reason: '1 etcd members, 3 Nodes', warning: expect.stringContaining('etcd member cp1 (8e9e05c52164694d') });
    expect(task.plan({ etcd: etcdMemberList.parse('failed\nError: context deadline exceeded', 0), nodes }, {} as HostContext)).toEqual({
      kind: 'none',
      reason: 'etcd members not read (Error: context deadline exceeded), 3 Nodes, each an inventory host',
    });
  });
  it('a warning is shown on its task line', () => {
    const line = plainLine(
      {
        type: 'task-result',
        play: 'p',
        host: 'cp2',
        role: 'addons-running',
        task: 't',
        status: 'ok',
        reason: 'r',
        warning: 'w',
        durationMs: 1,
        roundTrips: 1,
        check: false,
        time: 0,
      },
      '/log',
    );
    expect(line).toBe('cp2 | addons-running | t | ok | r | WARNING: w');
  });
});
