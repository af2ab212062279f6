// What `kcluster etcd snapshot save|restore` share (the last day-2 commands that are not yet
// playbooks): the inventory's topology, the cluster PKI from the state folder, an API
// client with the admin certificate, and SSH connections opened on demand and closed at the
// end. Needs a cluster that `kcluster apply` installed (the PKI must exist).
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { loadInventoryOrReport } from './load-inventory-or-report.js';
import { promptHidden } from './prompt-hidden.js';
import { lockOrReport } from './lock-or-report.js';
import { pkiSpecOf } from '../kubernetes/cluster/pki-spec.js';
import { requireInstalledPki, topologyOrInputError } from '../kubernetes/cluster/installed-cluster.js';
import type { Topology } from '../kubernetes/cluster/topology.js';
import { InputError } from '../orchestrator/engine/input-error.js';
import type { HostSettings, Inventory } from '../orchestrator/inventory/model.js';
import { apiClient, type ApiClient } from '../kubernetes/kube/api-client.js';
import { ensureClusterPki, type ClusterPki } from '../kubernetes/pki/cluster-pki.js';
import type { Connection } from '../orchestrator/ssh/connection.js';
import { createSshConnector } from '../orchestrator/ssh/connector.js';
import { hostKeyPolicyFor } from '../orchestrator/ssh/host-key-policy-for.js';

export interface ClusterSession {
  readonly inventory: Inventory;
  readonly topology: Topology;
  readonly pki: ClusterPki;
  /** The API through `server` (default: the admin endpoint of the inventory). */
  api(server?: string): ApiClient;
  host(name: string): HostSettings;
  connect(name: string): Promise<Connection>;
  close(): Promise<void>;
}

export async function openClusterSession(cli: CliContext, inventory: Inventory): Promise<ClusterSession> {
  requireInstalledPki(inventory, 'this command');
  const topology = topologyOrInputError(inventory);
  const pki = await ensureClusterPki(inventory.stateDir, pkiSpecOf(inventory, topology));
  const connector = createSshConnector({
    inventory,
    env: cli.env,
    hostKeys: hostKeyPolicyFor(inventory, cli.env),
    ...(cli.interactive ? { promptPassphrase: (keyFile: string) => promptHidden(`passphrase for ${keyFile}: `) } : {}),
  });
  const host = (name: string): HostSettings => {
    const found = inventory.hosts.find((h) => h.name === name);
    if (!found) throw new InputError(`${inventory.file}: no host named "${name}" (hosts: ${inventory.hosts.map((h) => h.name).join(', ')})`);
    return found;
  };
  return {
    inventory,
    topology,
    pki,
    api: (server = topology.adminServerUrl) => apiClient({ server, caCert: pki.ca.cert, clientCert: pki.admin.cert, clientKey: pki.admin.key }),
    host,
    connect: (name) => connector.connect(host(name), cli.signal),
    close: () => connector.closeAll(),
  };
}

/**
 * Runs `body` with a session and reports its failure: bad input (InputError) is exit 2 with
 * nothing changed; anything else that goes wrong on the hosts or the API is exit 4, with the
 * message naming the host.
 */
export async function withClusterSession(cli: CliContext, inventoryFile: string, body: (session: ClusterSession) => Promise<void>): Promise<void> {
  const inventory = await loadInventoryOrReport(cli, inventoryFile);
  if (!inventory) return;
  const lock = lockOrReport(cli, inventory);
  if (!lock) return;
  let session: ClusterSession | undefined;
  try {
    session = await openClusterSession(cli, inventory);
    await body(session);
  } catch (error) {
    cli.stderr.write(`kcluster: ${(error as Error).message}\n`);
    cli.setExitCode(error instanceof InputError ? ExitCode.InvalidInput : ExitCode.HostsFailed);
  } finally {
    await session?.close();
    lock.release();
  }
}
