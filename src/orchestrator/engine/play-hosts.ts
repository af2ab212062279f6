// Which hosts a play runs on: its own selector, narrowed by --limit, cut into serial batches.
import type { Inventory } from '../inventory/model.js';
import { quotedTerms as quoted, selectHosts, unknownSelectorHint as hint } from '../inventory/select-hosts.js';
import { InputError } from './input-error.js';
import type { Play } from './types.js';

/** The hosts --limit allows (every host without a limit); an unknown term is an InputError. */
export function limitHosts(inventory: Inventory, limit: readonly string[] | undefined): Set<string> {
  if (!limit || limit.length === 0) return new Set(inventory.hosts.map((h) => h.name));
  const selection = selectHosts(inventory, limit);
  if (selection.unknown.length > 0) {
    throw new InputError(`--limit: no host or group named ${quoted(selection.unknown)} in the inventory${hint(inventory, selection.unknown)}`);
  }
  return new Set(selection.hosts);
}

export function playHosts(inventory: Inventory, play: Play): string[] {
  const selection = selectHosts(inventory, play.hosts);
  if (selection.unknown.length > 0) {
    throw new InputError(
      `play "${play.name}" selects ${quoted(selection.unknown)}, which the inventory does not define${hint(inventory, selection.unknown)}: add it to the inventory or fix the playbook`,
    );
  }
  return selection.hosts;
}

/** `serial`: a host count or a percentage of the play's hosts (at least one host per batch). */
export function batchesOf(hosts: readonly string[], serial: Play['serial']): string[][] {
  if (serial === undefined || hosts.length === 0) return [[...hosts]];
  const wanted = typeof serial === 'number' ? serial : Math.floor((hosts.length * Number(serial.slice(0, -1))) / 100);
  const size = Number.isFinite(wanted) ? Math.max(1, Math.floor(wanted)) : hosts.length;
  const out: string[][] = [];
  for (let i = 0; i < hosts.length; i += size) out.push(hosts.slice(i, i + size));
  return out;
}
