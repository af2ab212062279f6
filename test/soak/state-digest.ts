// The state folder's bytes, so that the soak can show `--check` leaves them as they were: every
// file but the logs (each run writes one) with its content's hash, and what differs between two.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

export function stateFolderDigest(dir: string): Map<string, string> {
  const digest = new Map<string, string>();
  for (const file of filesUnder(dir)) {
    const name = relative(dir, file);
    if (name.startsWith('logs/')) continue;
    digest.set(name, createHash('sha256').update(readFileSync(file)).digest('hex'));
  }
  return digest;
}

/** What differs between two digests: "changed x", "added y", "removed z", sorted. */
export function digestDifference(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [name, hash] of before) {
    if (!after.has(name)) changes.push(`removed ${name}`);
    else if (after.get(name) !== hash) changes.push(`changed ${name}`);
  }
  for (const name of after.keys()) if (!before.has(name)) changes.push(`added ${name}`);
  return changes.sort();
}
