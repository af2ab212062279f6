// An SSH connector for a command's own reads outside a playbook run (certs check, etcd
// snapshots, etcd's member list before apply plans): the inventory's host key policy, and a
// passphrase prompt only where someone can answer it.
import type { CliContext } from './context.js';
import { promptHidden } from './prompt-hidden.js';
import type { Inventory } from '../orchestrator/inventory/model.js';
import { createSshConnector, type SshConnector } from '../orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../orchestrator/ssh/host-key-policy-for.js';

export function controllerConnector(cli: CliContext, inventory: Inventory): SshConnector {
  return createSshConnector({
    inventory,
    env: cli.env,
    hostKeys: hostKeyPolicyFor(inventory, cli.env),
    ...(cli.interactive ? { promptPassphrase: (keyFile: string) => promptHidden(`passphrase for ${keyFile}: `) } : {}),
  });
}
