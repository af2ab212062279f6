// etcd membership as seen from one control plane: parsers for the members (hex IDs, names,
// client URLs) and the endpoints that answer a health check (read by the etcd:membership fact,
// etcd-membership.ts); the quorum rule remove-node applies; removing a member.
import { execChecked, type Connection } from '../../orchestrator/ssh/connection.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { ETCDCTL } from './etcdctl.js';

export interface EtcdMember {
  /** Hex, as etcdctl prints and takes it (the JSON form is a uint64 that JavaScript would round). */
  readonly id: string;
  readonly name: string;
  readonly clientUrls: readonly string[];
  readonly peerUrls: readonly string[];
  /** A non-voting member (added with --learner, not promoted yet). */
  readonly learner: boolean;
  readonly healthy: boolean;
}

/** A member as `member list` shows it: an added member that has not started yet has no name. */
export type ListedMember = Omit<EtcdMember, 'healthy'>;

/** `member list -w simple` lines: "ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER". */
export function parseMemberList(stdout: string): ListedMember[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const fields = line.split(',').map((f) => f.trim());
      if (fields.length < 5 || !/^[0-9a-f]+$/.test(fields[0]!)) throw new Error(`unexpected etcdctl member list line "${line.slice(0, 160)}"`);
      const urls = (field: string | undefined) => (field ?? '').split(' ').filter(Boolean);
      return { id: fields[0]!, name: fields[2]!, peerUrls: urls(fields[3]), clientUrls: urls(fields[4]), learner: fields[5] === 'true' };
    });
}

/** `endpoint health --cluster -w json`: [{ endpoint, health }]. */
export function parseEndpointHealth(stdout: string): Map<string, boolean> {
  const start = stdout.indexOf('[');
  const list = JSON.parse(start >= 0 ? stdout.slice(start) : '[]') as { endpoint: string; health: boolean }[];
  return new Map(list.map((e) => [e.endpoint, e.health]));
}

/**
 * Why removing `name` would cost the cluster its quorum, or undefined when it is safe: the
 * members left must have a healthy majority among themselves.
 */
export function quorumProblem(members: readonly EtcdMember[], name: string): string | undefined {
  const remaining = members.filter((m) => m.name !== name);
  if (remaining.length === members.length) return undefined;
  if (remaining.length === 0) return `${name} is the only etcd member: removing it destroys the cluster (use kcluster reset for that)`;
  const healthy = remaining.filter((m) => m.healthy);
  const needed = Math.floor(remaining.length / 2) + 1;
  if (healthy.length >= needed) return undefined;
  const sick = remaining.filter((m) => !m.healthy).map((m) => m.name);
  return `after removing ${name}, ${healthy.length} of ${remaining.length} remaining etcd members would be healthy, and quorum needs ${needed} (unhealthy: ${sick.join(', ')}): repair them first`;
}

/**
 * Why removing a healthy `name` would leave an even number of members, or undefined: an even
 * count survives no more failures than one member fewer (2 survive none, 4 one), so it is only
 * done knowingly. Removing a member that does not answer costs nothing: it already cannot vote.
 */
export function evenMembersProblem(members: readonly EtcdMember[], name: string): string | undefined {
  const member = members.find((m) => m.name === name);
  if (member === undefined || !member.healthy) return undefined;
  const left = members.length - 1;
  if (left === 0 || left % 2 === 1) return undefined;
  return (
    `etcd would be left with ${left} members, an even number: they need ${left / 2 + 1} for quorum, so they survive no more failures than ${left - 1} would (${left === 2 ? 'none' : left / 2 - 1}). ` +
    `Add a control plane first (kcluster apply with it in the inventory), or pass --allow-even to remove ${name} anyway (to replace it right after, for example)`
  );
}

export async function removeEtcdMember(connection: Connection, id: string): Promise<void> {
  await execChecked(connection, sh`${ETCDCTL} member remove ${id}`, { become: true, label: 'etcd member remove' });
}
