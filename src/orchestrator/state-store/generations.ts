// The state in a store as numbered generations (issue 41): each generation is a sealed manifest
// naming every file of the state (its size, mode, a keyed digest of its content, and the sealed
// blob that holds it), created only if that number is still free. Of two controllers that
// start from the same generation, one makes the next and the other is told the state changed
// under it: nothing written is ever lost, several files change together or not at all (a CA
// switch moves keys between files), and history and rollback need nothing of the bucket.
import { createHash, createHmac } from 'node:crypto';
import { open, seal } from './envelope.js';
import { ContentMismatch, PreconditionFailed, type S3Client } from './s3/s3-client.js';
import type { StateKey } from './state-key.js';

export interface StateFile {
  /** Its path in the state folder ("pki/ca.key"). */
  readonly path: string;
  readonly content: Buffer;
  readonly mode: number;
}

export interface ManifestEntry {
  /** The object that holds it sealed: blobs/<sha256 of the sealed bytes>. */
  readonly blob: string;
  readonly size: number;
  readonly mode: number;
  /** HMAC of path and content with the state key: a change is seen without a download, and nothing is revealed. */
  readonly mac: string;
}

export interface WrittenBy {
  readonly machine: string;
  readonly pid: number;
  readonly command: string;
}

export interface Manifest {
  readonly generation: number;
  readonly parent?: number;
  readonly createdAt: string;
  readonly by: WrittenBy;
  /** Why it was written ("apply: before the first change", "rollback to 41"). */
  readonly reason: string;
  readonly keyFingerprint: string;
  readonly files: Readonly<Record<string, ManifestEntry>>;
}

/** Another controller wrote the generation this one meant to write. */
export class StateChanged extends Error {
  override readonly name = 'StateChanged';
  constructor(
    message: string,
    readonly winner: Manifest | undefined,
  ) {
    super(message);
  }
}

const GENERATIONS = 'generations/';
const generationKey = (n: number): string => `${GENERATIONS}${String(n).padStart(10, '0')}.kce`;
const numberOf = (key: string): number | undefined => {
  const m = /(\d{10})\.kce$/.exec(key);
  return m ? Number(m[1]) : undefined;
};

export const macOf = (key: StateKey, path: string, content: Buffer): string =>
  createHmac('sha256', key.bytes).update(path).update('\0').update(content).digest('hex');

/** Whether `file` is what `entry` holds (same mode, same keyed digest): then nothing of it needs moving. */
export const holdsFile = (key: StateKey, entry: ManifestEntry | undefined, file: StateFile): boolean =>
  entry !== undefined && entry.mode === file.mode && entry.mac === macOf(key, file.path, file.content);

/** Whether `files` are exactly what `manifest` holds, no more and no less (nothing at all for no manifest). */
export const holdsExactly = (key: StateKey, manifest: Manifest | undefined, files: readonly StateFile[]): boolean =>
  manifest === undefined
    ? files.length === 0
    : files.length === Object.keys(manifest.files).length && files.every((f) => holdsFile(key, manifest.files[f.path], f));

export class GenerationStore {
  constructor(
    private readonly s3: S3Client,
    /** Where this cluster's state is in the bucket ("team/prod/"; "" for the bucket's root). */
    private readonly prefix: string,
    private readonly key: StateKey,
  ) {}

  private where(key: string): string {
    return this.s3.describe(`${this.prefix}${key}`);
  }

  /** Every generation's number, oldest first. */
  async numbers(): Promise<number[]> {
    const out: number[] = [];
    for await (const o of this.s3.list(`${this.prefix}${GENERATIONS}`)) {
      const n = numberOf(o.key);
      if (n !== undefined) out.push(n);
    }
    return out;
  }

  async read(generation: number): Promise<Manifest> {
    const key = generationKey(generation);
    const got = await this.s3.get(`${this.prefix}${key}`);
    if (got === undefined) throw new Error(`${this.where(key)}: no generation ${generation} in the store (kcluster state history lists them)`);
    const manifest = JSON.parse(open(this.key, key, got.body, this.where(key)).toString('utf8')) as Manifest;
    if (manifest.generation !== generation)
      throw new Error(`${this.where(key)} says it is generation ${manifest.generation}: restore it from the store's history`);
    return manifest;
  }

  /** The newest generation, or undefined for an empty store. */
  async head(): Promise<Manifest | undefined> {
    const all = await this.numbers();
    return all.length === 0 ? undefined : this.read(all[all.length - 1]!);
  }

  /** The files of `manifest` (all, or those named), each opened and checked against its digest. */
  async files(manifest: Manifest, paths: readonly string[] = Object.keys(manifest.files)): Promise<StateFile[]> {
    return Promise.all(
      paths.map(async (path) => {
        const entry = manifest.files[path];
        if (entry === undefined) throw new Error(`generation ${manifest.generation} has no ${path}`);
        const got = await this.s3.get(`${this.prefix}${entry.blob}`).catch((error: unknown) => {
          if (error instanceof ContentMismatch) return { body: Buffer.alloc(0), etag: '' };
          throw error;
        });
        const hint =
          manifest.generation > 1
            ? `roll the store back to generation ${manifest.generation - 1} or older`
            : 'no older generation holds it: publish the state again from a controller whose state folder has it';
        if (got === undefined)
          throw new Error(`${this.where(entry.blob)}, which holds ${path} in generation ${manifest.generation}, is missing from the store: ${hint}`);
        if (createHash('sha256').update(got.body).digest('hex') !== entry.blob.slice('blobs/'.length))
          throw new Error(`${this.where(entry.blob)}, which holds ${path} in generation ${manifest.generation}, fails its checksum: ${hint}`);
        const content = open(this.key, path, got.body, this.where(entry.blob));
        if (macOf(this.key, path, content) !== entry.mac)
          throw new Error(`${path} in generation ${manifest.generation} is not what the manifest says: ${hint}`);
        return { path, content, mode: entry.mode };
      }),
    );
  }

  /**
   * Writes the next generation after `base` holding exactly `files`: only the files whose
   * content changed are uploaded. Throws StateChanged when another controller wrote it first.
   */
  async commit(base: Manifest | undefined, files: readonly StateFile[], by: WrittenBy, reason: string, now = new Date()): Promise<Manifest> {
    const entries: Record<string, ManifestEntry> = {};
    await Promise.all(
      files.map(async (file) => {
        // The digest is needed for the new entry too: computed once, not through holdsFile.
        const mac = macOf(this.key, file.path, file.content);
        const known = base?.files[file.path];
        if (known !== undefined && known.mac === mac && known.mode === file.mode) {
          entries[file.path] = known;
          return;
        }
        const sealed = seal(this.key, file.path, file.content);
        const blob = `blobs/${createHash('sha256').update(sealed).digest('hex')}`;
        await this.s3.put(`${this.prefix}${blob}`, sealed);
        entries[file.path] = { blob, size: file.content.length, mode: file.mode, mac };
      }),
    );
    const generation = (base?.generation ?? 0) + 1;
    const manifest: Manifest = {
      generation,
      ...(base !== undefined ? { parent: base.generation } : {}),
      createdAt: now.toISOString(),
      by,
      reason,
      keyFingerprint: this.key.fingerprint,
      files: Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    const key = generationKey(generation);
    try {
      await this.s3.put(`${this.prefix}${key}`, seal(this.key, key, Buffer.from(JSON.stringify(manifest))), { ifAbsent: true });
    } catch (error) {
      if (!(error instanceof PreconditionFailed)) throw error;
      const winner = await this.read(generation).catch(() => undefined);
      throw new StateChanged(
        `the state changed under this run: generation ${generation} was written by ${winner ? `${winner.by.command} (pid ${winner.by.pid} on ${winner.by.machine}, ${winner.createdAt})` : 'another controller'} while this run started from ${base?.generation ?? 'an empty store'}; nothing of this run was published: run it again`,
        winner,
      );
    }
    return manifest;
  }

  /** A new generation holding what `to` held (history stays linear: nothing is deleted). */
  async rollback(to: number, by: WrittenBy): Promise<Manifest> {
    const head = await this.head();
    const target = await this.read(to);
    if (head === undefined) throw new Error('the store is empty: nothing to roll back');
    return this.commit(head, await this.files(target), by, `rollback to ${to}`);
  }
}
