// Reading a file a user named (key file, known_hosts, inventory) only when it is a regular file
// of a size suited to what it is: /dev/zero as a key file grew kcluster to 20 GB, a FIFO would
// block forever. The file is opened without blocking and checked on its descriptor, so what
// is checked is what is read.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';

export const KIB = 1024;
export const MIB = 1024 * 1024;

/** OpenSSH private keys are a few KiB (RSA 16384 bits with a comment stays under 16). */
export const MAX_KEY_FILE_BYTES = 64 * KIB;
/** About 100,000 hosts' keys. */
export const MAX_KNOWN_HOSTS_BYTES = 64 * MIB;

/** Why `path` cannot be read as `what` (with its article: "a private key file"), or undefined when it can (a missing file is the caller's to judge). */
export function fileProblem(path: string, maxBytes: number, what: string): string | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  return statProblem(stat, path, maxBytes, what);
}

function statProblem(stat: { isFile(): boolean; size: number }, path: string, maxBytes: number, what: string): string | undefined {
  if (!stat.isFile()) return `${path} is not a regular file (${what} must be one)`;
  if (stat.size > maxBytes) return `${path} is ${sizeText(stat.size)}: ${what} is at most ${sizeText(maxBytes)}; is it the right file?`;
  return undefined;
}

function sizeText(bytes: number): string {
  return bytes >= MIB ? `${(bytes / MIB).toFixed(1)} MiB` : bytes >= KIB ? `${(bytes / KIB).toFixed(1)} KiB` : `${bytes} bytes`;
}

/** Reads the whole file, or throws with a sentence saying why it will not. */
export function readBoundedFileSync(path: string, maxBytes: number, what: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    const problem = statProblem(stat, path, maxBytes, what);
    if (problem) throw new Error(problem);
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
