// The artifacts of a playbook built only to be read (its tags by --list-tags or a --tags check,
// what `config --host` shows): resolved without downloading or hashing, each file marked as not
// fetched. The tasks built from them are never planned against a host: nothing is installed
// from these.
import type { Inventory } from '../../orchestrator/inventory/model.js';
import type { PreparedArtifact } from './artifact.js';
import { prepareArtifacts } from './prepare-artifacts.js';

export async function unfetchedArtifacts(inventory: Inventory): Promise<PreparedArtifact[]> {
  // Images the runtime pulls (source: release) have no file: the images role imports none.
  return (await prepareArtifacts(inventory, { resolveOnly: true })).map((a) =>
    a.origin.kind === 'registry'
      ? a
      : {
          localPath: '(not fetched)',
          sha256: '0'.repeat(64),
          size: 0,
          ...(a.type === 'image' && a.origin.kind === 'bundle' ? { imageId: '(not read)' } : {}),
          ...a,
        },
  );
}
