// Facts: etcd's members as one control plane sees them, alone (etcdMemberList) or each with
// whether its client endpoint answers a health check (etcdMembership). Read with the
// health-check client certificate on that host.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { parseEndpointHealth, parseMemberList, type EtcdMember, type ListedMember } from './etcd-members.js';
import { ETCDCTL } from './etcdctl.js';

const HEALTH_MARK = '--- kcluster etcd health ---';

// Only stdout is parsed (etcdctl logs warnings on stderr); on failure its last lines say why.
const MEMBER_LIST = sh`list=$(${ETCDCTL} member list -w simple 2>/dev/null) || { ${ETCDCTL} member list -w simple 2>&1 | tail -n 3; exit 1; }; printf '%s\n' "$list"`;

const failure = (stdout: string, exitCode: number): Error =>
  new Error(`etcdctl member list failed on this control plane: ${stdout.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `exit ${exitCode}`}`);

/** etcd's member list alone (no health check: a dead member would cost its timeout on every read). */
export const etcdMemberList: Fact<ListedMember[]> = {
  key: 'etcd:member-list',
  become: true,
  script: MEMBER_LIST,
  parse: (stdout, exitCode) => {
    if (exitCode !== 0) throw failure(stdout, exitCode);
    return parseMemberList(stdout);
  },
};

export function parseEtcdMembership(stdout: string, exitCode: number): EtcdMember[] {
  const at = stdout.indexOf(HEALTH_MARK);
  if (exitCode !== 0 || at < 0) throw failure(stdout, exitCode);
  const healthy = parseEndpointHealth(stdout.slice(at + HEALTH_MARK.length));
  return parseMemberList(stdout.slice(0, at)).map((m) => ({ ...m, healthy: m.clientUrls.some((u) => healthy.get(u) === true) }));
}

export function etcdMembership(): Fact<EtcdMember[]> {
  return {
    key: 'etcd:membership',
    become: true,
    // `endpoint health` exits 1 when some endpoint is unhealthy: its JSON still says which.
    script: sh`${MEMBER_LIST}; echo ${HEALTH_MARK}; ${ETCDCTL} --command-timeout=10s endpoint health --cluster -w json 2>/dev/null; exit 0`,
    parse: parseEtcdMembership,
  };
}
