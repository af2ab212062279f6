// Which control planes are voting etcd members, from etcd's own member list, read over SSH on
// a control plane: the truth about membership. The API's reflection of it (etcd mirror pods,
// control-plane labels, Nodes) lags behind by up to minutes after a remove-node, and a host
// taken for a member that is none fails at the first step that needs its etcd certificates.
import { readFacts } from '../../orchestrator/engine/read-facts.js';
import type { HostSettings } from '../../orchestrator/inventory/model.js';
import type { Connection } from '../../orchestrator/ssh/connection.js';
import type { ListedMember } from './etcd-members.js';
import { etcdMemberList } from './etcd-membership.js';

/** Pure: the names of the members that vote (a learner, or a member added that never started, does not). */
export const votingMemberNames = (members: readonly ListedMember[]): string[] =>
  members
    .filter((m) => !m.learner && m.name !== '')
    .map((m) => m.name)
    .sort();

export type EtcdVotersRead = { readonly voters: readonly string[]; readonly readOn: string } | { readonly failures: readonly string[] };

/**
 * Asks every control plane at once (any may be down, or be a host that was reset) and takes the
 * first answer; each failure is kept, by host, for the caller to say.
 */
export async function readEtcdVoters(controlPlanes: readonly HostSettings[], connect: (host: HostSettings) => Promise<Connection>): Promise<EtcdVotersRead> {
  const failures: string[] = [];
  const ask = async (host: HostSettings): Promise<{ voters: string[]; readOn: string }> => {
    let connection: Connection | undefined;
    try {
      connection = await connect(host);
      const [members] = await readFacts(connection, [etcdMemberList] as const, { label: 'etcd member list', timeoutMs: 20_000 });
      return { voters: votingMemberNames(members), readOn: host.name };
    } catch (error) {
      failures.push(`${host.name}: ${(error as Error).message.split('\n')[0]}`);
      throw error;
    } finally {
      await connection?.close().catch(() => undefined);
    }
  };
  try {
    return await Promise.any(controlPlanes.map(ask));
  } catch {
    return { failures: failures.sort() };
  }
}
