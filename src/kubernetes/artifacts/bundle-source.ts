// A local bundle: a directory, or a tarball of one (.tar, .tar.gz, .tgz), holding binaries,
// image archives and the lock file. A tarball is unpacked once into the artifact cache (keyed
// by its path, size and mtime). `verifyBundle` checks every piece against the lock.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ArtifactError, artifactLabel } from './artifact.js';
import { LOCK_FILE, parseBundleLock, type BundleEntry, type BundleLock } from './bundle-lock.js';
import { extract } from './local-tar.js';
import type { VerifiedFiles } from './verified-files.js';
import { MIB, readBoundedFileSync } from '../../orchestrator/util/bounded-file.js';

/** The inventory key that names the bundle. */
const BUNDLE_KEY = ['cluster', 'artifacts', 'bundle'];

export interface OpenBundle {
  /** The path the user gave (for messages). */
  readonly given: string;
  /** Directory holding the lock file and the pieces. */
  readonly root: string;
  readonly lock: BundleLock;
}

const isTarball = (path: string): boolean => /\.(tar|tar\.gz|tgz|tar\.zst|tar\.xz)$/.test(path);

async function unpackTarball(path: string, cacheDir: string): Promise<string> {
  const info = await stat(path);
  const key = createHash('sha256')
    .update(`${resolve(path)}|${info.size}|${info.mtimeMs}`)
    .digest('hex')
    .slice(0, 16);
  const dir = join(cacheDir, 'bundles', key);
  if (existsSync(join(dir, LOCK_FILE))) return dir;
  const temp = `${dir}.partial`;
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  await extract(path, temp, `bundle ${path}`);
  // A tarball of the bundle directory itself: use the one folder inside.
  const root = existsSync(join(temp, LOCK_FILE)) ? temp : undefined;
  if (!root) {
    const entries = await readdir(temp);
    if (entries.length !== 1 || !existsSync(join(temp, entries[0]!, LOCK_FILE))) {
      await rm(temp, { recursive: true, force: true });
      throw new ArtifactError(`bundle ${path}: no ${LOCK_FILE} at the top of the tarball (or of its one folder): is this a kcluster bundle?`);
    }
    await rm(dir, { recursive: true, force: true });
    await rename(join(temp, entries[0]!), dir);
    await rm(temp, { recursive: true, force: true });
    return dir;
  }
  await rm(dir, { recursive: true, force: true });
  await rename(temp, dir);
  return dir;
}

export async function openBundle(path: string, cacheDir: string): Promise<OpenBundle> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new ArtifactError(
      `bundle ${path}: not found: set it to the folder \`kcluster bundle build\` printed (or a copy of it, or its tarball), or build the bundle first`,
      BUNDLE_KEY,
    );
  }
  const root = info.isDirectory() ? path : isTarball(path) ? await unpackTarball(path, cacheDir) : undefined;
  if (!root) throw new ArtifactError(`bundle ${path}: neither a directory nor a .tar/.tar.gz/.tgz tarball`, BUNDLE_KEY);
  const lockPath = join(root, LOCK_FILE);
  let text: string;
  try {
    // A lock file lists a few hundred pieces: a few KiB; anything but a small regular file is refused.
    text = readBoundedFileSync(lockPath, 16 * MIB, 'a bundle lock file').toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ArtifactError(`bundle ${path}: ${(error as Error).message}`);
    throw new ArtifactError(`bundle ${path}: ${LOCK_FILE} is missing: a bundle needs its lock file (name, version, arch and sha256 of every piece)`);
  }
  return { given: path, root, lock: parseBundleLock(text, lockPath) };
}

export interface BundleProblem {
  readonly entry: BundleEntry;
  readonly problem: string;
}

/** Check one entry's file: present, right size, right sha256. Returns the problem, if any. */
export async function checkEntry(bundle: OpenBundle, entry: BundleEntry, verified: VerifiedFiles): Promise<string | undefined> {
  const file = join(bundle.root, entry.path);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return `${artifactLabel(entry)}: ${entry.path} is missing from the bundle (expected sha256 ${entry.sha256})`;
  }
  if (size !== entry.size)
    return `${artifactLabel(entry)}: ${entry.path} has ${size} bytes, the lock says ${entry.size} (expected sha256 ${entry.sha256}): the file is truncated or replaced`;
  const { sha256 } = await verified.sha256(file);
  if (sha256 !== entry.sha256)
    return `${artifactLabel(entry)}: ${entry.path} has sha256 ${sha256}, expected ${entry.sha256}: the file is corrupt or was replaced`;
  return undefined;
}

export async function verifyBundle(bundle: OpenBundle, verified: VerifiedFiles): Promise<BundleProblem[]> {
  const problems: BundleProblem[] = [];
  for (const entry of bundle.lock.artifacts) {
    const problem = await checkEntry(bundle, entry, verified);
    if (problem) problems.push({ entry, problem });
  }
  await verified.save();
  return problems;
}
