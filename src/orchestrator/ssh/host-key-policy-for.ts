// The host key policy of an inventory: ~/.ssh/known_hosts, the inventory's knownHostsFile,
// then trust-on-first-use pins in <stateDir>/known_hosts. KCLUSTER_STRICT_HOST_KEYS=1 turns
// trust-on-first-use off.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Inventory } from '../inventory/model.js';
import { HostKeyPolicy } from './host-key-policy.js';

export function hostKeyPolicyFor(inventory: Inventory, env: NodeJS.ProcessEnv): HostKeyPolicy {
  const files = [join(env['HOME'] ?? homedir(), '.ssh', 'known_hosts')];
  if (inventory.ssh.knownHostsFile) files.push(inventory.ssh.knownHostsFile);
  return new HostKeyPolicy({
    knownHostsFiles: files,
    pinFile: join(inventory.stateDir, 'known_hosts'),
    strict: env['KCLUSTER_STRICT_HOST_KEYS'] === '1',
    inventoryFile: inventory.file,
  });
}
