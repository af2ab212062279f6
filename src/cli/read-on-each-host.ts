// The read-only commands' fan-out (facts, certs check, etcd snapshot list): connect to each host
// at once, run one read there, and say per host what came of it: the value, unreachable (with
// the connection's reason) or failed (what it was doing and why). Every connection is closed
// afterwards; nothing is written on a host.
import type { CliContext } from './context.js';
import { controllerConnector } from './controller-connector.js';
import type { Connection } from '../orchestrator/ssh/connection.js';
import { UnreachableError } from '../orchestrator/ssh/connection.js';
import { detailFor } from '../orchestrator/ssh/host-error.js';
import type { HostSettings, Inventory } from '../orchestrator/inventory/model.js';

export type HostRead<T> =
  | { readonly host: string; readonly status: 'ok'; readonly value: T; readonly roundTrips: number }
  | { readonly host: string; readonly status: 'unreachable' | 'failed'; readonly error: string; readonly roundTrips: number };

/** "HOST: unreachable: REASON" or "HOST: DOING: DETAIL". */
function aboutHost(host: string, error: unknown, doing: string): string {
  return `${host}: ${doing}: ${error instanceof UnreachableError && error.host === host ? error.reason : detailFor(host, error)}`;
}

/** `doing` names the read in a failure ("cannot list its certificates"). */
export async function readOnEachHost<T>(
  cli: CliContext,
  inventory: Inventory,
  hosts: readonly HostSettings[],
  doing: string,
  read: (connection: Connection, host: HostSettings) => Promise<T>,
): Promise<HostRead<T>[]> {
  const connector = controllerConnector(cli, inventory);
  try {
    return await Promise.all(
      hosts.map(async (host): Promise<HostRead<T>> => {
        let connection: Connection;
        try {
          connection = await connector.connect(host, cli.signal);
        } catch (error) {
          return { host: host.name, status: 'unreachable', error: aboutHost(host.name, error, 'unreachable'), roundTrips: 0 };
        }
        try {
          return { host: host.name, status: 'ok', value: await read(connection, host), roundTrips: connection.stats.roundTrips };
        } catch (error) {
          const unreachable = error instanceof UnreachableError;
          return {
            host: host.name,
            status: unreachable ? 'unreachable' : 'failed',
            error: aboutHost(host.name, error, unreachable ? 'unreachable' : doing),
            roundTrips: connection.stats.roundTrips,
          };
        }
      }),
    );
  } finally {
    await connector.closeAll();
  }
}
