// Downloads over SFTP with node-ssh on the connection's own ssh2 client: parallel reads
// (fastGet) streamed to a local temp file, renamed into place once whole; never held in memory.
// A file only root may read is first copied, as root, to a private temp file the login user
// owns (SFTP runs as the login user), and that copy is removed afterwards.
import { rename, rm, stat } from 'node:fs/promises';
import { NodeSSH } from 'node-ssh';
import type { Client } from 'ssh2';
import { sha256File } from '../util/sha256-file.js';
import type { DownloadedFile } from './connection.js';

export interface SftpDownloadRequest {
  readonly client: Client;
  readonly remotePath: string;
  readonly localPath: string;
}

/** Reads in parallel, 64 KiB each (bench/download); the local file is private (0600) from the start. */
const TRANSFER = { concurrency: 16, chunkSize: 64 * 1024, mode: 0o600 } as const;

export async function sftpDownload(request: SftpDownloadRequest): Promise<DownloadedFile> {
  const ssh = new NodeSSH();
  ssh.connection = request.client;
  const partial = `${request.localPath}.partial-${process.pid}`;
  try {
    await ssh.withSFTP((sftp) => ssh.getFile(partial, request.remotePath, sftp, TRANSFER));
    const { size } = await stat(partial);
    const sha256 = await sha256File(partial);
    await rename(partial, request.localPath);
    return { bytes: size, sha256 };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
