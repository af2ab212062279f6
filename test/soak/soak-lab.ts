// The soak's lab: its name, subnet and files, and what the harness reads and runs on its hosts
// over the OpenSSH client (sshTo). Every remote command is a fixed string or built with
// quoteWord.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { quoteWord } from '../../src/orchestrator/ssh/quote.js';
import { bundleDir, bundleEntries, bundleKubernetesVersions, sshTo } from '../e2e/support/e2e-support.js';
import type { SoakReleases } from './soak-inventory.js';
import { FIXED_HOST, labControlPlaneCount, labHostCount, type Topology } from './cluster-model.js';

/** `npm run soak`'s lab, or another (the suite's fixed-seed slice has its own: KCLUSTER_SOAK_LAB, KCLUSTER_SOAK_SUBNET). */
export const LAB_NAME = process.env['KCLUSTER_SOAK_LAB'] ?? 'kcsoak';
export const LAB_SUBNET = process.env['KCLUSTER_SOAK_SUBNET'] ?? '10.231.20.0/24';
export const labDir = join(homedir(), '.kcluster', 'labs', LAB_NAME);
export const labInventoryFile = join(labDir, 'inventory.yaml');
/** The inventory the soak writes and every command of it uses. */
export const soakInventoryFile = join(labDir, 'soak-inventory.yaml');
export const stateDir = join(labDir, 'state');

export const hostName = (host: number): string => `${LAB_NAME}${host}`;

/** `kcluster lab up` of the soak's lab: at start, and again to boot a power-cycled host. */
export const labUpArgs = (topology: Topology): string[] => [
  'lab',
  'up',
  '--name',
  LAB_NAME,
  '--hosts',
  String(labHostCount(topology)),
  '--control-planes',
  String(labControlPlaneCount(topology)),
  '--privileged',
  '--subnet',
  LAB_SUBNET,
  '--bundle',
  bundleDir(),
];
const ssh = sshTo(labDir);

/** A fixed command (or one built with quoteWord) on a soak host, as root. */
export const sshOnSoakHost = (host: string, command: string): Promise<string> => ssh(host, command);

/** A host's address, from the lab's inventory. */
export function hostAddress(host: number): string {
  const doc = parse(readFileSync(labInventoryFile, 'utf8')) as { hosts: { name: string; address?: string }[] };
  const address = doc.hosts.find((h) => h.name === hostName(host))?.address;
  if (address === undefined) throw new Error(`${labInventoryFile}: no address for ${hostName(host)}`);
  return address;
}

/** kubectl on the host that is never removed, with its admin kubeconfig (renewed by the rotations on the host itself). */
export const kubectl = (...args: string[]): Promise<string> =>
  ssh(hostName(FIXED_HOST), ['/usr/local/bin/kubectl', '--kubeconfig=/etc/kubernetes/admin.conf', '--request-timeout=20s', ...args].map(quoteWord).join(' '));

export const kubectlApply = (manifest: string): Promise<string> =>
  ssh(hostName(FIXED_HOST), '/usr/local/bin/kubectl --kubeconfig=/etc/kubernetes/admin.conf --request-timeout=20s apply -f -', manifest);

export const etcdMemberList = (through: number): Promise<string> =>
  ssh(
    hostName(through),
    '/usr/local/bin/etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key member list -w simple',
  );

/** The bundle's two newest releases: the install runs the older, the upgrade goes to the newer. */
export function soakReleases(): SoakReleases {
  const versions = bundleKubernetesVersions();
  if (versions.length < 2)
    throw new Error(
      `the bundle holds ${versions.join(', ')}: the soak needs two releases (kcluster bundle build --upgrade-pair --every-component --test-tools)`,
    );
  return { previous: versions.at(-2)!, newest: versions.at(-1)! };
}

export const busyboxReference = (): string => {
  const busybox = bundleEntries().find((a) => a.name === 'busybox');
  if (!busybox?.reference) throw new Error('the bundle has no busybox image: build it with --test-tools');
  return busybox.reference;
};

/** The bundle's busybox image into a host's containerd (idempotent): a host reset by remove-node has lost it. */
export async function importBusybox(host: number): Promise<void> {
  const busybox = bundleEntries().find((a) => a.name === 'busybox')!;
  await ssh(hostName(host), 'ctr -n k8s.io images import -', readFileSync(join(bundleDir(), busybox.path)));
}

/** A CA or service-account key rotation left under way (its state file in the state folder). */
export const rotationUnderWay = (): boolean => existsSync(join(stateDir, 'pki', 'rotation', 'state.json'));
