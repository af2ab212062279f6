// Load an inventory for a command; on errors print every diagnostic and set exit code 2.
import type { CliContext } from './context.js';
import { ExitCode } from './exit-codes.js';
import type { Inventory } from '../inventory/model.js';
import { formatDiagnostic, loadInventory } from '../inventory/load-inventory.js';

export async function loadInventoryOrReport(cli: CliContext, file: string): Promise<Inventory | undefined> {
  const result = await loadInventory(file, { env: cli.env });
  for (const warning of result.warnings) cli.stderr.write(`${formatDiagnostic(warning)}\n`);
  if (!result.ok) {
    for (const error of result.errors) cli.stderr.write(`${formatDiagnostic(error)}\n`);
    cli.stderr.write(`kcluster: ${result.errors.length} error(s) in ${file}; nothing was done\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return undefined;
  }
  return result.inventory;
}
