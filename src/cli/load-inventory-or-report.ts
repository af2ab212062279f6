// Load an inventory for a command; on errors print every diagnostic and set exit code 2.
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import type { Inventory } from '../orchestrator/inventory/model.js';
import { formatDiagnostic, loadInventory } from '../kubernetes/inventory/load-inventory.js';

/** Like a compiler's error limit: the first errors are the ones to fix, a wall of 150,000 helps nobody. */
const MAX_SHOWN_ERRORS = 100;

export async function loadInventoryOrReport(cli: CliContext, file: string): Promise<Inventory | undefined> {
  const result = await loadInventory(file, { env: cli.env });
  for (const warning of result.warnings) cli.stderr.write(`${formatDiagnostic(warning)}\n`);
  if (!result.ok) {
    const shown = result.errors.slice(0, MAX_SHOWN_ERRORS);
    cli.stderr.write(shown.map((e) => `${formatDiagnostic(e)}\n`).join(''));
    if (result.errors.length > shown.length)
      cli.stderr.write(`... and ${result.errors.length - shown.length} more error(s) after ${formatDiagnostic(shown[shown.length - 1]!).split(': ')[0]}\n`);
    cli.stderr.write(`kcluster: ${result.errors.length} error(s) in ${file}; nothing was done\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  return result.inventory;
}
