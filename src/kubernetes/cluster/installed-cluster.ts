// What every command that acts on an installed cluster checks first, as bad input (exit 2,
// nothing touched): the inventory describes a valid topology, and kcluster apply made its PKI.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { topologyOf, type Topology } from './topology.js';

/** The topology, or an InputError with why the inventory has none. */
export function topologyOrInputError(inventory: Inventory): Topology {
  try {
    return topologyOf(inventory);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

/** Refuses a state folder without the cluster CA: `who` acts on a cluster apply installed. */
export function requireInstalledPki(inventory: Inventory, who: string): void {
  if (!existsSync(join(inventory.stateDir, 'pki', 'ca.crt'))) {
    throw new InputError(`${inventory.file}: no cluster PKI in ${inventory.stateDir}: ${who} acts on a cluster that kcluster apply installed`);
  }
}
