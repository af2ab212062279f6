// The files of the state folder a state store holds (issue 41): what defines the cluster and
// cannot be made again (the CAs and every key, the Secrets encryption keys, the pinned host
// keys, a rotation's records and its retired CAs). Logs, the journal, backups and plan files are
// not among them; temporary files and the lock never are.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { StateFile } from '../../orchestrator/state-store/generations.js';

const TRACKED_FOLDERS = ['pki', 'encryption', 'retired-cas'];
const TRACKED_FILES = ['known_hosts'];
/** A write in progress (PkiFiles, atomic writes): never state. */
const isTemporary = (name: string): boolean => name.endsWith('.tmp') || name.startsWith('.kcluster-write.') || name.startsWith('.');

function walk(root: string, dir: string, out: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (isTemporary(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, path, out);
    else if (entry.isFile()) out.push(relative(root, path).split(sep).join('/'));
  }
}

/** The tracked paths present in the state folder, sorted. */
export function trackedPaths(stateDir: string): string[] {
  const out: string[] = [];
  for (const folder of TRACKED_FOLDERS) if (existsSync(join(stateDir, folder))) walk(stateDir, join(stateDir, folder), out);
  for (const file of TRACKED_FILES) if (existsSync(join(stateDir, file))) out.push(file);
  return out.sort();
}

export function readTracked(stateDir: string): StateFile[] {
  return trackedPaths(stateDir).map((path) => {
    const full = join(stateDir, path);
    return { path, content: readFileSync(full), mode: statSync(full).mode & 0o777 };
  });
}

/** Writes one file of the store into the state folder (through a temporary file and a rename). */
export function writeTracked(stateDir: string, file: StateFile): void {
  const full = join(stateDir, file.path);
  mkdirSync(dirname(full), { recursive: true, mode: 0o700 });
  const temporary = `${full}.tmp`;
  writeFileSync(temporary, file.content, { mode: file.mode });
  chmodSync(temporary, file.mode);
  renameSync(temporary, full);
}

/** Moves a file the store does not have out of the way (never deleted): <stateDir>/untrusted/<time>/<path>. */
export function moveAside(stateDir: string, path: string, at: string): string {
  const target = join(stateDir, 'untrusted', at, path);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  renameSync(join(stateDir, path), target);
  return target;
}
