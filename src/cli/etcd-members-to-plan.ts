// Which control planes apply converges as etcd members and which join: etcd's own member list,
// read over SSH before the plays are built (src/kubernetes/etcd/etcd-voters.ts). Where it and
// the API's view differ (a removed control plane's etcd pod or label still listed), the
// operator is told which decided. Where no control plane can give the list, the API's view
// is used and the operator is told that too, with each host's reason.
import type { CliContext } from './context.js';
import { controllerConnector } from './controller-connector.js';
import type { RunningCluster } from '../kubernetes/cluster/running-cluster.js';
import { readEtcdVoters } from '../kubernetes/etcd/etcd-voters.js';
import type { HostSettings, Inventory } from '../orchestrator/inventory/model.js';

/** Pure: what to say about etcd's list against the API's view (undefined: they agree). */
export function membershipNote(voters: readonly string[], readOn: string, fromApi: readonly string[]): string | undefined {
  const onlyApi = fromApi.filter((n) => !voters.includes(n));
  const onlyEtcd = voters.filter((n) => !fromApi.includes(n));
  if (onlyApi.length === 0 && onlyEtcd.length === 0) return undefined;
  return (
    `etcd's member list (read on ${readOn}): ${voters.join(', ') || 'none'}; the API still shows etcd pods or control-plane labels of ${fromApi.join(', ') || 'none'}. ` +
    (onlyApi.length > 0
      ? `etcd decides: ${onlyApi.join(', ')} ${onlyApi.length === 1 ? 'is no etcd member and joins as a new one' : 'are no etcd members and join as new ones'} where the inventory lists ${onlyApi.length === 1 ? 'it' : 'them'} as a control plane`
      : `etcd decides: ${onlyEtcd.join(', ')} converge${onlyEtcd.length === 1 ? 's' : ''} as ${onlyEtcd.length === 1 ? 'a member' : 'members'}`)
  );
}

export async function etcdMembersToPlan(
  cli: CliContext,
  inventory: Inventory,
  controlPlanes: readonly HostSettings[],
  running: RunningCluster,
): Promise<readonly string[]> {
  const say = (line: string): void => void cli.stderr.write(`kcluster: ${line}\n`);
  const connector = controllerConnector(cli, inventory);
  try {
    const read = await readEtcdVoters(controlPlanes, (host) => connector.connect(host, cli.signal));
    if ('failures' in read) {
      say(
        `etcd's member list could not be read on any control plane (${read.failures.join('; ')}): which control planes join is taken from the API (etcd pods and control-plane labels: ${running.etcdMembers.join(', ') || 'none'})`,
      );
      return running.etcdMembers;
    }
    const note = membershipNote(read.voters, read.readOn, running.etcdMembers);
    if (note !== undefined) say(note);
    return read.voters;
  } finally {
    await connector.closeAll();
  }
}
