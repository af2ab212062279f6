// A secret the inventory names by its environment variable (the state store's credentials, the
// control planes' upload credential): read from the controller's environment, or refused at the
// key that names the variable, saying what to set it to.
import { InputError } from '../../orchestrator/engine/input-error.js';
import type { Inventory } from '../../orchestrator/inventory/model.js';
import { inventoryKeyLocation } from './source-map.js';

/**
 * The value of the variable `name`, which the inventory key at `path` names (`derivedFrom`:
 * where to point when that key is a default, not written); an InputError there when it is unset
 * or empty, ending "set it to `purpose`".
 */
export function envNamedAt(
  inventory: Inventory,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  path: readonly string[],
  purpose: string,
  derivedFrom?: readonly string[],
): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new InputError(`${inventoryKeyLocation(inventory.file, path, derivedFrom)}: the environment variable ${name} is not set: set it to ${purpose}`);
  return value;
}
