// Inventories written as text for unit tests: saved in a folder of the test's (so relative
// paths and file:line:col work as for a real file) and parsed with a fixed environment.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';

/** The parse result of `text` saved as a new file in `root`, and that file. */
export function parseInventoryText(root: string, text: string) {
  const file = join(root, `inventory-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  return { file, result: parseInventory(text, file, { env: { SSH_AUTH_SOCK: '/a' }, homeDir: join(root, 'home') }) };
}

/** The inventory `text` describes; throws with every diagnostic when it is not valid. */
export function loadInventoryText(root: string, text: string): Inventory {
  const { result } = parseInventoryText(root, text);
  if (!result.ok) throw new Error(result.errors.map(formatDiagnostic).join('\n'));
  return result.inventory;
}
