// A file copied into a state store sealed, and one brought back opened, each streamed through a
// sealed copy beside the file that is removed whatever happens: how the etcd snapshots and the
// runs' logs travel (sealed-file.ts does the sealing and opening).
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { S3Client } from './s3/s3-client.js';
import { sealFile } from './sealed-file.js';
import type { StateKey } from './state-key.js';

/** Seals `file` as the state's `statePath` and uploads it as the object `objectKey`. */
export async function putSealedFile(s3: S3Client, key: StateKey, statePath: string, file: string, objectKey: string): Promise<void> {
  const sealed = join(dirname(file), `.${basename(file)}.kce.tmp`);
  try {
    const { sha256, bytes } = await sealFile(key, statePath, file, sealed);
    await s3.putFile(objectKey, sealed, sha256, bytes);
  } finally {
    await rm(sealed, { force: true });
  }
}

/**
 * Downloads the object `objectKey` beside `file` and has `open` open that sealed copy into
 * `file` (openFile or openRecipientFile, with the key and path it checks): what `open` gives,
 * or undefined when the store has no such object.
 */
export async function getSealedFile<T>(s3: S3Client, objectKey: string, file: string, open: (sealed: string) => Promise<T>): Promise<T | undefined> {
  const sealed = join(dirname(file), `.${basename(file)}.sealed.download`);
  try {
    return (await s3.getFile(objectKey, sealed)) ? await open(sealed) : undefined;
  } finally {
    await rm(sealed, { force: true });
  }
}
