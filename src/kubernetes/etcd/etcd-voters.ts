// Which control planes are voting etcd members, from etcd's own member list, read over SSH on
// a control plane: the truth about membership. The API's reflection of it (etcd mirror pods,
// control-plane labels, Nodes) lags behind by up to minutes after a remove-node, and a host
// taken for a member that is none fails at the first step that needs its etcd certificates.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { readFacts } from '../../orchestrator/engine/read-facts.js';
import type { HostSettings } from '../../orchestrator/inventory/model.js';
import type { Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { parseMemberList, type ListedMember } from './etcd-members.js';
import { ETCDCTL } from './etcdctl.js';

/** etcd's member list alone (no health check: a dead member would cost its timeout on every run). */
export const etcdMemberList: Fact<ListedMember[]> = {
  key: 'etcd:member-list',
  become: true,
  script: sh`list=$(${ETCDCTL} --command-timeout=10s member list -w simple 2>/dev/null) || { ${ETCDCTL} --command-timeout=10s member list -w simple 2>&1 | tail -n 3; exit 1; }; printf '%s\n' "$list"`,
  parse: (stdout, exitCode) => {
    if (exitCode !== 0) throw new Error(`etcdctl member list failed: ${stdout.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `exit ${exitCode}`}`);
    return parseMemberList(stdout);
  },
};

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
