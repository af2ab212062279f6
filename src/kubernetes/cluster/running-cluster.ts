// What a running cluster says about itself, read through its API with the state folder's
// existing admin certificate before anything is generated or changed on the controller or a
// host: the API server's version, each node's kubelet version, and the members its etcd was
// formed with (the --initial-cluster of the etcd static pods). Undefined when there is no PKI
// yet or no API server answers (the admin endpoint or any control plane): a fresh install.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient } from '../kube/api-client.js';
import { kubeletVersionsOf, type NodeListWithVersions } from '../kube/kubelet-versions.js';
import { nodeAddress, type Topology } from './topology.js';

export interface RunningCluster {
  readonly gitVersion: string;
  /** Node name -> kubelet version. */
  readonly kubelets: ReadonlyMap<string, string>;
  /** The nodes an etcd pod runs on: the control planes that are etcd members (empty when no etcd pod is visible). */
  readonly etcdMembers: readonly string[];
}

interface PodList {
  readonly items: readonly { readonly spec: { readonly nodeName?: string } }[];
}

/**
 * Pure: the nodes etcd's (mirror) pods run on. Not their --initial-cluster flags: a member
 * keeps the flags it first started with (etcd reads them once), whatever joined or left since.
 */
export function etcdMembersOf(pods: PodList): string[] {
  return [...new Set(pods.items.map((p) => p.spec.nodeName).filter((n): n is string => n !== undefined && n !== ''))].sort();
}

/** Pure: where to ask, in order of preference: the admin endpoint, then every control plane (one may be down). */
export function apiServersToAsk(topology: Pick<Topology, 'adminServerUrl' | 'controlPlanes' | 'apiPort'>): string[] {
  return [...new Set([topology.adminServerUrl, ...topology.controlPlanes.map((h) => `https://${nodeAddress(h)}:${topology.apiPort}`)])];
}

export async function readRunningCluster(stateDir: string, topology: Pick<Topology, 'adminServerUrl' | 'controlPlanes' | 'apiPort'>, timeoutMs = 5_000): Promise<RunningCluster | undefined> {
  const pki = join(stateDir, 'pki');
  const files = ['ca.crt', 'admin.crt', 'admin.key'].map((f) => join(pki, f));
  if (!files.every((f) => existsSync(f))) return undefined;
  const [caCert, clientCert, clientKey] = files.map((f) => readFileSync(f, 'utf8')) as [string, string, string];
  // Asked in parallel, so a fresh install (nothing answers) costs one timeout at most; once
  // one answers, the others are dropped (a control plane that is down would otherwise keep
  // its request, and the process, alive until the timeout).
  const race = new AbortController();
  const asked = apiServersToAsk(topology).map(async (server) => {
    const version = await apiClient({ server, caCert, clientCert, clientKey }, timeoutMs, race.signal).get<{ gitVersion: string }>('/version');
    return { server, version };
  });
  let answered;
  try {
    answered = await Promise.any(asked);
  } catch {
    return undefined;
  } finally {
    race.abort();
  }
  const { server, version } = answered;
  const api = apiClient({ server, caCert, clientCert, clientKey }, timeoutMs);
  const nodes = await api.get<NodeListWithVersions>('/api/v1/nodes').catch(() => ({ items: [] }));
  const etcd = await api.get<PodList>('/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd').catch(() => ({ items: [] }));
  return {
    gitVersion: version.gitVersion,
    kubelets: new Map(kubeletVersionsOf(nodes)),
    etcdMembers: etcdMembersOf(etcd),
  };
}
