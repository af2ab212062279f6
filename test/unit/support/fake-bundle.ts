// A bundle that satisfies the inputs checks (checkClusterInputs, validate): a folder with a
// lock file that lists every artifact the given inventories need, and no pieces. The checks
// never read the pieces (apply does, and `kcluster artifacts verify`), so tests that validate
// an inventory written for a bundle point it here instead of building one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_FILE, type BundleEntry } from '../../../src/kubernetes/artifacts/bundle-lock.js';
import { requiredArtifacts } from '../../../src/kubernetes/artifacts/required-artifacts.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';

/** Writes the lock into `dir` (created) and returns `dir`. */
export function writeFakeBundle(dir: string, inventories: readonly Inventory[]): string {
  mkdirSync(dir, { recursive: true });
  const entries = new Map<string, BundleEntry>();
  for (const inventory of inventories) {
    for (const a of requiredArtifacts(inventory)) {
      const path = `${a.type}s/${a.component}/${a.name}-${a.version}-${a.arch}`;
      const id = { component: a.component, name: a.name, version: a.version, arch: a.arch, type: a.type };
      entries.set(path, {
        ...id,
        path,
        size: 0,
        sha256: '0'.repeat(64),
        ...(a.type === 'image' ? { format: 'oci' as const, reference: `${a.name}:${a.version}` } : {}),
      });
    }
  }
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ kind: 'kcluster-bundle', formatVersion: 1, arch: 'amd64', artifacts: [...entries.values()] }, null, 2));
  return dir;
}
