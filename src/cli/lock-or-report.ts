// Take the cluster's state lock for a command, or report who holds it (exit 2, nothing touched);
// or hold it around a command of several runs.
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { acquireStateLock, inventoryStateDirProblem, type StateLock } from './state-lock.js';
import { InputError } from '../orchestrator/engine/input-error.js';
import type { Inventory } from '../orchestrator/inventory/model.js';
import { abbreviate } from '../orchestrator/ssh/connection.js';
import { isStoreRefusal } from '../orchestrator/state-store/store-refusal.js';
import { openStateSession, type StateSession } from './state-store/state-session.js';

/** What the lock file (and a store's lease and history) says is running: the command line, without the program path. */
export function commandLine(): string {
  return abbreviate(['kcluster', ...process.argv.slice(2)].join(' '));
}

export function lockOrReport(cli: CliContext, inventory: Inventory): StateLock | undefined {
  try {
    const stateDir = inventoryStateDirProblem(inventory);
    if (stateDir !== undefined) throw new InputError(stateDir);
    return acquireStateLock(inventory.stateDir, commandLine(), (line) => cli.stderr.write(`${line}\n`));
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
}

/**
 * Runs `body` holding the state lock the whole time: a command of several runs (each phase of a
 * CA rotation, a key rotation and its final record) writes the state folder between them, and
 * no other kcluster may run in those gaps. The runs inside take the same lock again (a process
 * may nest it). Undefined, reported, when another run holds it.
 */
export async function withStateLock<T>(cli: CliContext, inventory: Inventory, body: () => Promise<T>): Promise<T | undefined> {
  const hold = await holdStateOrReport(cli, inventory);
  if (!hold) return undefined;
  try {
    return await body();
  } finally {
    await hold.release(`${commandLine()}: ended`);
  }
}

/** The state lock and, with cluster.state, the store's session: taken together, let go together. */
export interface StateHold {
  /** The store's session, when the cluster has one. */
  readonly session?: StateSession;
  /** Commits what changed to the store (with one), lets the lease and the lock go. */
  release(reason: string): Promise<void>;
}

/**
 * Takes the state lock, then with cluster.state the store's lease and its newest state (see
 * state-store/state-session.ts); or reports why not (exit 2, nothing touched).
 */
export async function holdStateOrReport(cli: CliContext, inventory: Inventory): Promise<StateHold | undefined> {
  const lock = lockOrReport(cli, inventory);
  if (!lock) return undefined;
  let session: StateSession | undefined;
  try {
    session = await openStateSession(inventory, {
      command: commandLine(),
      env: cli.env,
      say: (line) => void cli.stderr.write(`kcluster: ${line}\n`),
      onLost: (error) => void cli.stderr.write(`kcluster: ${error.message}\n`),
    });
  } catch (error) {
    lock.release();
    if (!(error instanceof InputError || isStoreRefusal(error))) throw error;
    cli.stderr.write(`kcluster: ${error.message}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  return {
    ...(session !== undefined ? { session } : {}),
    release: async (reason) => {
      try {
        await session?.close(reason);
      } catch (error) {
        if (!isStoreRefusal(error)) throw error;
        cli.stderr.write(
          `kcluster: the state folder's changes could not be published to ${session!.where}: ${error.message}. They are in ${inventory.stateDir}, and the next command refuses to run until they are published: kcluster state push -i ${inventory.file} --yes once the store answers\n`,
        );
        cli.setExitCode(ExitCode.StateNotPublished);
      } finally {
        lock.release();
      }
    },
  };
}
