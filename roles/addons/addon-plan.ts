// The plan of one built-in addon: compare its rendered manifest with what the record says
// kcluster last applied, and show the text that changes (`--check --diff`).
import { createHash } from 'node:crypto';
import { noChange, type Change } from '../../src/orchestrator/engine/change.js';
import type { AddonRecord } from '../../src/kubernetes/facts/addon-record.js';
import { createTwoFilesPatch } from '../../src/orchestrator/tasks/managed-file.js';

export interface AddonPayload {
  readonly manifest: string;
  readonly sha256: string;
}

export function planAddon(name: string, manifest: string, record: AddonRecord): Change<AddonPayload> {
  if (!record.reachable) throw new Error(`cannot read the addon record through the API server: ${record.detail}`);
  const sha256 = createHash('sha256').update(manifest).digest('hex');
  const before = record.applied[name];
  if (before === sha256) return noChange(`${name} is applied as rendered (sha256 ${sha256.slice(0, 12)}…)`);
  const previous = record.texts[name];
  const unrecorded = before !== undefined && previous === undefined;
  const summary =
    before === undefined
      ? `apply ${name} (server-side apply)`
      : `re-apply ${name} (server-side apply)${unrecorded ? '; the text last applied was not recorded (an older kcluster), so the diff shows the whole manifest' : ''}`;
  const diff = createTwoFilesPatch(`a/addons/${name}.yaml`, `b/addons/${name}.yaml`, previous ?? '', manifest);
  return { kind: before === undefined ? 'create' : 'update', summary, diff, payload: { manifest, sha256 } };
}

/**
 * The plan of an addon turned off: delete what the record says kcluster applied (its recorded
 * text, or `current` when only a sha256 was recorded), showing that text as removed lines.
 */
export function planAddonRemoval(name: string, current: string, record: AddonRecord): Change<AddonPayload> {
  if (!record.reachable) throw new Error(`cannot read the addon record through the API server: ${record.detail}`);
  const before = record.applied[name];
  if (before === undefined) return noChange(`${name} is turned off and not applied`);
  const previous = record.texts[name];
  const manifest = previous ?? current;
  const summary = `delete ${name} (turned off in the inventory)${previous === undefined ? '; the text last applied was not recorded (an older kcluster), so the objects of the current manifest are deleted' : ''}`;
  const diff = createTwoFilesPatch(`a/addons/${name}.yaml`, `b/addons/${name}.yaml`, manifest, '');
  return { kind: 'delete', summary, diff, payload: { manifest, sha256: before } };
}
