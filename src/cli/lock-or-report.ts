// Take the cluster's state lock for a command, or report who holds it (exit 2, nothing touched);
// or hold it around a command of several runs.
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import { acquireStateLock, inventoryStateDirProblem, type StateLock } from './state-lock.js';
import { InputError } from '../orchestrator/engine/input-error.js';
import type { Inventory } from '../orchestrator/inventory/model.js';
import { abbreviate } from '../orchestrator/ssh/connection.js';

/** What the lock file says is running: the command line, without the program path. */
function commandLine(): string {
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
  const lock = lockOrReport(cli, inventory);
  if (!lock) return undefined;
  try {
    return await body();
  } finally {
    lock.release();
  }
}
