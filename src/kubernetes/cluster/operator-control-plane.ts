// Which control plane runs a playbook's once-per-cluster plays (apply's addons, upgrade's etcd
// snapshot and addons): the first in the inventory that --limit allows and whose SSH port
// answers now. The first control plane is not special: when it is down or left out with
// --limit '!NAME', those steps still run, on another.
import type { HostSettings } from '../../orchestrator/inventory/model.js';
import { firstAnswering } from '../../orchestrator/ssh/first-answering.js';
import type { Topology } from './topology.js';

export async function operatorControlPlane(
  topology: Pick<Topology, 'controlPlanes' | 'firstControlPlane'>,
  allowed: ReadonlySet<string>,
  log: (line: string) => void,
  answering: (hosts: readonly HostSettings[]) => Promise<HostSettings | undefined> = (hosts) => firstAnswering(hosts),
): Promise<string> {
  const first = topology.firstControlPlane.name;
  const candidates = topology.controlPlanes.filter((h) => allowed.has(h.name));
  if (candidates.length === 0) return first; // --limit leaves no control plane: those plays select no host
  if (candidates[0]!.name === first && candidates.length === 1) return first;
  const chosen = (await answering(candidates)) ?? candidates[0]!;
  if (chosen.name !== first)
    log(
      `the once-per-cluster steps (etcd snapshot, addons, their check, operator manifests) run on ${chosen.name}: ${allowed.has(first) ? `${first} does not answer on its SSH port` : `--limit leaves out ${first}`}`,
    );
  return chosen.name;
}
