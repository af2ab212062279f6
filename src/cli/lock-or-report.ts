// Take the cluster's state lock for a command, or report who holds it (exit 2, nothing touched).
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
