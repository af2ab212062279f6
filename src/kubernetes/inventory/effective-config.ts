// `kcluster config`: the complete effective configuration, every default filled in.
// It holds only the NAMES of environment variables that carry secrets, never a secret.
import { stringify } from 'yaml';
import type { Inventory } from '../../orchestrator/inventory/model.js';

export function effectiveConfig(inventory: Inventory): Record<string, unknown> {
  return {
    file: inventory.file,
    cluster: inventory.cluster,
    ssh: inventory.ssh,
    stateDir: inventory.stateDir,
    groups: inventory.groups,
    hosts: inventory.hosts.map((h) => ({
      name: h.name,
      roles: h.roles,
      ssh: h.ssh,
      become: h.become,
      ...(h.bastion ? { bastion: h.bastion } : {}),
      vars: h.vars,
      source: h.source,
    })),
  };
}

export function renderEffectiveConfig(inventory: Inventory, format: 'yaml' | 'json'): string {
  const config = effectiveConfig(inventory);
  return format === 'json' ? `${JSON.stringify(config, null, 2)}\n` : stringify(config, { lineWidth: 0, aliasDuplicateObjects: false });
}
