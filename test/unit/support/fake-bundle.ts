// A bundle that satisfies the inputs checks (checkClusterInputs, validate): a folder with a
// lock file that lists every artifact the given inventories need, and no pieces. The checks
// never read the pieces (apply does, and `kcluster artifacts verify`), so tests that validate
// an inventory written for a bundle point it here instead of building one.
// writeFakeBundleWithPieces adds the pieces themselves, for tests that verify them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/** A docker-archive holding only its manifest: enough for the controller to read an image ID from. */
function fakeImageArchive(file: string, reference: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'kc-fake-image-'));
  const hex = createHash('sha256').update(reference).digest('hex');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify([{ Config: `${hex}.json`, RepoTags: [reference], Layers: [] }]));
  execFileSync('tar', ['-cf', file, '-C', dir, 'manifest.json']);
}

/**
 * writeFakeBundle's lock with a small piece for every entry, of the size and sha256 the lock
 * lists (an image a docker-archive with only its manifest): the controller verifies and reads
 * it as a bundle; no host could run what it holds.
 */
export function writeFakeBundleWithPieces(dir: string, inventories: readonly Inventory[]): string {
  writeFakeBundle(dir, inventories);
  const lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as {
    artifacts: { path: string; type: string; reference?: string; size: number; sha256: string }[];
  };
  for (const entry of lock.artifacts) {
    const file = join(dir, entry.path);
    mkdirSync(dirname(file), { recursive: true });
    if (entry.type === 'image') fakeImageArchive(file, entry.reference ?? entry.path);
    else writeFileSync(file, `fake piece ${entry.path}\n`);
    const content = readFileSync(file);
    entry.size = content.length;
    entry.sha256 = createHash('sha256').update(content).digest('hex');
  }
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock, null, 2));
  return dir;
}
